// llamaref: llama.cpp's view of a GGUF model, through the libllama C API
// that the npm package node-llama-cpp ships prebuilt. tpsbench's
// conformance test and engine benchmark compare against it.
//
//   llamaref logits   MODEL TOKEN...          logits of every position (one token a decode), one line each
//   llamaref tokenize MODEL                   token ids of each stdin line (with BOS; special
//                     tokens in the text parsed, as llama.cpp's server does with a prompt)
//   llamaref bench    MODEL THREADS PROMPT GEN [BATCH]
//                     prompt-processing and generation tokens/s (JSON)
//   llamaref trace    MODEL NAMES TOKEN...    the F32 tensors NAMES (comma-separated, as llama.cpp's
//                     graph names them, e.g. attn_norm-0,Qcur-0,ffn_out-0) at the last token (at
//                     every token with LLAMAREF_TRACE_ALL=1): for each, a "# NAME NE0 NE1 NE2 POS"
//                     line, then one value a line (a name the graph gives again after a reshape or
//                     rope comes again)
//   llamaref chat     TEMPLATE                llama.cpp's chat prompt for the messages on stdin, one a
//                     line as ROLE<tab>CONTENT (\n in CONTENT a newline), with the assistant's turn
//                     begun; TEMPLATE is a template's text or a name (chatml, llama3, ...)
//   llamaref quantize IN OUT FTYPE            llama.cpp's quantizer: FTYPE is a llama_ftype
//                     number (15 Q4_K_M, 17 Q5_K_M, 18 Q6_K, 10 Q2_K, 12 Q3_K_M, 32 BF16, ...)
//   llamaref embed    MODEL POOLING TOKEN...  the tokens' embedding pooled as POOLING (mean, last, cls),
//                     not normalized, in one decode: one value a line
//   llamaref benchembed MODEL THREADS TOKENS BATCH ROUNDS
//                     embeddings/s: BATCH sequences of TOKENS tokens in one decode, mean-pooled,
//                     ROUNDS times (JSON)
//   llamaref vocab    MODEL                   loads only the model's vocabulary (and metadata), as
//                     llama.cpp's loader reads it: its size and BOS, EOS and EOT ids, one line
//   llamaref variants                         the CPU variants llama.cpp ships (libggml-cpu-NAME.so), one a
//                     line as NAME SCORE (0: does not run on this CPU), then "use NAME": the one loaded
//
// llama.cpp ships one CPU library per instruction set and loads the one
// that scores highest on this CPU; they do not compute alike (the
// sapphirerapids one sums F16 products in F16, the others in F32).
// LLAMAREF_CPU=NAME loads that variant instead, so that a comparison
// means the same on every machine; "bench" prints the variant it ran.
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ggml.h"
#include "ggml-backend.h"
#include "llama.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void quiet(enum ggml_log_level level, const char *text, void *user) {
    (void)user;
    if (level >= GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

static const char *backends_dir(void) {
    const char *dir = getenv("LLAMAREF_BACKENDS");
#ifdef LLAMAREF_BACKENDS_DIR
    if (!dir) dir = LLAMAREF_BACKENDS_DIR;
#endif
    if (!dir) { fprintf(stderr, "llamaref: set LLAMAREF_BACKENDS to the folder of libggml-cpu-*.so\n"); exit(1); }
    return dir;
}

// score is what a CPU variant's library says of this CPU (ggml's own
// choice takes the highest; 0: it does not run here), or -1 when it
// cannot be asked.
static int score(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/libggml-cpu-%s.so", dir, name);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return -1;
    int (*fn)(void) = (int (*)(void))dlsym(h, "ggml_backend_score");
    int s = fn ? fn() : -1;
    dlclose(h);
    return s;
}

// variant_name is the CPU variant load() loaded.
static char variant_name[256];

// pick_variant returns LLAMAREF_CPU, or else the highest-scoring variant
// in dir; with list set it prints every variant and its score.
static const char *pick_variant(const char *dir, int list) {
    const char *want = getenv("LLAMAREF_CPU");
    if (want && *want) return want;
    DIR *d = opendir(dir);
    if (!d) { fprintf(stderr, "llamaref: cannot read %s\n", dir); exit(1); }
    static char best[256];
    int best_score = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        size_t len = strlen(n);
        if (strncmp(n, "libggml-cpu-", 12) || len < 16 || strcmp(n + len - 3, ".so")) continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(len - 15), n + 12);
        int s = score(dir, name);
        if (list) printf("%s %d\n", name, s);
        if (s > best_score) { best_score = s; snprintf(best, sizeof best, "%s", name); }
    }
    closedir(d);
    if (!best_score) { fprintf(stderr, "llamaref: no CPU variant in %s runs on this CPU\n", dir); exit(1); }
    return best;
}

static void load_cpu_backend(void) {
    const char *dir = backends_dir();
    const char *name = pick_variant(dir, 0);
    char path[4096];
    snprintf(path, sizeof path, "%s/libggml-cpu-%s.so", dir, name);
    if (!ggml_backend_load(path)) {
        fprintf(stderr, "llamaref: llama.cpp's CPU variant %s (%s) does not load here (llamaref variants lists those that run)\n", name, path);
        exit(1);
    }
    snprintf(variant_name, sizeof variant_name, "%s", name);
}

static struct llama_model *load_with(const char *path, int vocab_only) {
    llama_log_set(quiet, NULL);
    load_cpu_backend();
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    mp.vocab_only = vocab_only;
    struct llama_model *m = llama_model_load_from_file(path, mp);
    if (!m) { fprintf(stderr, "llamaref: cannot load %s\n", path); exit(1); }
    return m;
}

static struct llama_model *load(const char *path) { return load_with(path, 0); }

static int vocab(const char *path) {
    struct llama_model *m = load_with(path, 1);
    const struct llama_vocab *v = llama_model_get_vocab(m);
    printf("%d %d %d %d\n", llama_vocab_n_tokens(v), llama_vocab_bos(v), llama_vocab_eos(v), llama_vocab_eot(v));
    llama_model_free(m);
    return 0;
}

// the tensor trace prints, and whether to print it (the last decode only)
static const char *trace_name;
static int trace_now, trace_pos;

static bool trace_cb(struct ggml_tensor *t, bool ask, void *user) {
    (void)user;
    // trace_name is a comma-separated list
    const char *name = ggml_get_name(t);
    size_t len = strlen(name);
    const char *p = trace_name;
    int found = 0;
    while (!found && p && *p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        found = n == len && !strncmp(p, name, n);
        p = end ? end + 1 : NULL;
    }
    if (!found) return false;
    if (ask) return true;
    if (!trace_now || t->type != GGML_TYPE_F32 || !ggml_is_contiguous(t)) return true;
    // one decode is one token: all of the tensor is that token's (a
    // tensor named again after a reshape or rope is printed again)
    printf("# %s %lld %lld %lld %d\n", ggml_get_name(t), (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2], trace_pos);
    for (int64_t i = 0; i < ggml_nelements(t); i++) printf("%.9g\n", ((const float *)t->data)[i]);
    return true;
}

// the pooling of an embedding context ("embed"); -1: no embeddings
static int embed_pooling = -1;
// a KV cache of its own for each sequence ("benchembed"): a unified one
// has every token of a batch of prompts attend over every cell, masked
static int split_kv = 0;

static struct llama_context *context(struct llama_model *m, int threads, int n_ctx, int n_batch, int n_seq, int f32_cache) {
    struct llama_context_params cp = llama_context_default_params();
    if (embed_pooling >= 0) { cp.embeddings = true; cp.pooling_type = (enum llama_pooling_type)embed_pooling; }
    cp.n_ctx = n_ctx;
    cp.n_seq_max = n_seq;
    cp.kv_unified = !split_kv;
    cp.n_batch = n_batch;
    cp.n_ubatch = n_batch;
    cp.n_threads = threads;
    cp.n_threads_batch = threads;
    cp.no_perf = 1;
    cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    if (f32_cache) { cp.type_k = GGML_TYPE_F32; cp.type_v = GGML_TYPE_F32; }
    if (trace_name) { cp.cb_eval = trace_cb; cp.cb_eval_user_data = NULL; }
    struct llama_context *c = llama_init_from_model(m, cp);
    if (!c) { fprintf(stderr, "llamaref: cannot make a context\n"); exit(1); }
    return c;
}

static int logits(const char *path, int n, char **toks) {
    struct llama_model *m = load(path);
    if (trace_name) trace_now = 0;
    // an F32 cache unless LLAMAREF_KV=f16 asks for llama.cpp's default
    const char *kv = getenv("LLAMAREF_KV");
    struct llama_context *c = context(m, 1, 512, 512, 1, !(kv && !strcmp(kv, "f16")));
    int nv = llama_vocab_n_tokens(llama_model_get_vocab(m));
    // One token a decode call: the generation path, which the engine's
    // forward pass is compared with.
    struct llama_batch b = llama_batch_init(1, 0, 1);
    for (int i = 0; i < n; i++) {
        b.token[0] = atoi(toks[i]);
        b.pos[0] = i;
        b.n_seq_id[0] = 1;
        b.seq_id[0][0] = 0;
        b.logits[0] = 1;
        b.n_tokens = 1;
        trace_now = trace_name && (i == n - 1 || getenv("LLAMAREF_TRACE_ALL"));
        trace_pos = i;
        if (llama_decode(c, b) != 0) { fprintf(stderr, "llamaref: decode failed\n"); return 1; }
        if (trace_name) continue;
        float *l = llama_get_logits_ith(c, 0);
        for (int j = 0; j < nv; j++) printf(j ? " %.7g" : "%.7g", l[j]);
        printf("\n");
    }
    llama_batch_free(b);
    llama_free(c);
    llama_model_free(m);
    return 0;
}

static int embed(const char *path, const char *pooling, int n, char **toks) {
    if (!strcmp(pooling, "mean")) embed_pooling = LLAMA_POOLING_TYPE_MEAN;
    else if (!strcmp(pooling, "last")) embed_pooling = LLAMA_POOLING_TYPE_LAST;
    else if (!strcmp(pooling, "cls")) embed_pooling = LLAMA_POOLING_TYPE_CLS;
    else { fprintf(stderr, "llamaref: pooling %s: want mean, last or cls\n", pooling); return 2; }
    struct llama_model *m = load(path);
    struct llama_context *c = context(m, 1, 512, 512, 1, 1);
    struct llama_batch b = llama_batch_init(n, 0, 1);
    for (int i = 0; i < n; i++) {
        b.token[i] = atoi(toks[i]);
        b.pos[i] = i;
        b.n_seq_id[i] = 1;
        b.seq_id[i][0] = 0;
        b.logits[i] = 1;
    }
    b.n_tokens = n;
    if (llama_decode(c, b) != 0) { fprintf(stderr, "llamaref: decode failed\n"); return 1; }
    const float *v = llama_get_embeddings_seq(c, 0);
    if (!v) { fprintf(stderr, "llamaref: no pooled embedding\n"); return 1; }
    int dim = llama_model_n_embd(m);
    for (int i = 0; i < dim; i++) printf("%.9g\n", v[i]);
    llama_batch_free(b);
    llama_free(c);
    llama_model_free(m);
    return 0;
}

static int benchembed(const char *path, int threads, int nt, int batch, int rounds) {
    embed_pooling = LLAMA_POOLING_TYPE_MEAN;
    split_kv = 1;
    struct llama_model *m = load(path);
    int n = nt * batch;
    struct llama_context *c = context(m, threads, (nt + 16) * batch, n, batch, 0);
    struct llama_batch b = llama_batch_init(n, 0, 1);
    double total = 0;
    for (int r = 0; r <= rounds; r++) { // round 0 warms up
        llama_memory_clear(llama_get_memory(c), true);
        for (int s = 0; s < batch; s++) {
            for (int i = 0; i < nt; i++) {
                int k = s * nt + i;
                b.token[k] = 300 + (i + 7 * s) % 1000; b.pos[k] = i; b.n_seq_id[k] = 1; b.seq_id[k][0] = s; b.logits[k] = 1;
            }
        }
        b.n_tokens = n;
        double t0 = now();
        if (llama_decode(c, b) != 0) { fprintf(stderr, "llamaref: decode failed\n"); return 1; }
        for (int s = 0; s < batch; s++) if (!llama_get_embeddings_seq(c, s)) { fprintf(stderr, "llamaref: no embedding\n"); return 1; }
        if (r > 0) total += now() - t0;
    }
    printf("{\"engine\":\"llama.cpp\",\"cpu_variant\":\"%s\",\"threads\":%d,\"batch\":%d,\"tokens\":%d,\"embeddings_per_s\":%.2f}\n",
           variant_name, threads, batch, nt, (double)batch * rounds / total);
    llama_batch_free(b);
    llama_free(c);
    llama_model_free(m);
    return 0;
}

static int tokenize(const char *path) {
    struct llama_model *m = load(path);
    const struct llama_vocab *v = llama_model_get_vocab(m);
    static char line[1 << 16];
    llama_token toks[1 << 14];
    while (fgets(line, sizeof line, stdin)) {
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n') line[--len] = 0;
        int n = llama_tokenize(v, line, (int)len, toks, 1 << 14, true, true);
        for (int i = 0; i < n; i++) printf(i ? " %d" : "%d", toks[i]);
        printf("\n");
    }
    llama_model_free(m);
    return 0;
}

// bench: one prompt of np tokens (one decode call), then ng single-token
// decodes per sequence, batch sequences at once; as llama-bench measures.
static int bench(const char *path, int threads, int np, int ng, int batch) {
    struct llama_model *m = load(path);
    int n_ctx = (np + ng) * batch + 16;
    struct llama_context *c = context(m, threads, n_ctx, np > batch ? np : batch, batch, 0);
    struct llama_batch b = llama_batch_init(np > batch ? np : batch, 0, batch);
    // warm-up
    for (int i = 0; i < 4; i++) { b.token[i] = 3 + i; b.pos[i] = i; b.n_seq_id[i] = 1; b.seq_id[i][0] = 0; b.logits[i] = i == 3; }
    b.n_tokens = 4;
    llama_decode(c, b);
    llama_memory_clear(llama_get_memory(c), true);

    double t0 = now();
    for (int s = 0; s < batch; s++) {
        for (int i = 0; i < np; i++) { b.token[i] = 300 + i % 1000; b.pos[i] = i; b.n_seq_id[i] = 1; b.seq_id[i][0] = s; b.logits[i] = i == np - 1; }
        b.n_tokens = np;
        if (llama_decode(c, b) != 0) { fprintf(stderr, "llamaref: prompt decode failed\n"); return 1; }
    }
    double pp = now() - t0;
    t0 = now();
    for (int g = 0; g < ng; g++) {
        for (int s = 0; s < batch; s++) { b.token[s] = 400 + (g + s) % 1000; b.pos[s] = np + g; b.n_seq_id[s] = 1; b.seq_id[s][0] = s; b.logits[s] = 1; }
        b.n_tokens = batch;
        if (llama_decode(c, b) != 0) { fprintf(stderr, "llamaref: decode failed\n"); return 1; }
    }
    double tg = now() - t0;
    printf("{\"engine\":\"llama.cpp\",\"cpu_variant\":\"%s\",\"threads\":%d,\"batch\":%d,\"prompt_tps\":%.2f,\"gen_tps\":%.2f}\n",
           variant_name, threads, batch, np * batch / pp, ng * batch / tg);
    llama_batch_free(b);
    llama_free(c);
    llama_model_free(m);
    return 0;
}

// quantize: what llama-quantize does with no importance matrix, so the
// engine meets the mixed-format files people download.
static int quantize(const char *in, const char *out, int ftype) {
    llama_log_set(quiet, NULL);
    llama_backend_init();
    struct llama_model_quantize_params qp = llama_model_quantize_default_params();
    qp.ftype = (enum llama_ftype)ftype;
    qp.nthread = 0; // all cores: the result is the same, row by row
    if (llama_model_quantize(in, out, &qp) != 0) { fprintf(stderr, "llamaref: quantizing %s failed\n", in); return 1; }
    return 0;
}

static int chat(const char *tmpl) {
    static char line[1 << 16];
    struct llama_chat_message msgs[64];
    int n = 0;
    while (n < 64 && fgets(line, sizeof line, stdin)) {
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n') line[--len] = 0;
        char *tab = strchr(line, '\t');
        if (!tab) { fprintf(stderr, "llamaref: want ROLE<tab>CONTENT\n"); return 2; }
        *tab = 0;
        char *content = strdup(tab + 1), *w = content;
        for (char *r = content; *r; r++) {
            if (r[0] == '\\' && r[1] == 'n') { *w++ = '\n'; r++; } else *w++ = *r;
        }
        *w = 0;
        msgs[n].role = strdup(line);
        msgs[n].content = content;
        n++;
    }
    static char out[1 << 20];
    int32_t len = llama_chat_apply_template(tmpl, msgs, n, true, out, sizeof out);
    if (len < 0 || len > (int32_t)sizeof out) { fprintf(stderr, "llamaref: template not supported\n"); return 1; }
    fwrite(out, 1, len, stdout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "logits")) return logits(argv[2], argc - 3, argv + 3);
    if (argc == 3 && !strcmp(argv[1], "tokenize")) return tokenize(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "vocab")) return vocab(argv[2]);
    if ((argc == 6 || argc == 7) && !strcmp(argv[1], "bench"))
        return bench(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), argc == 7 ? atoi(argv[6]) : 1);
    if (argc >= 5 && !strcmp(argv[1], "trace")) { trace_name = argv[3]; argv[3] = argv[2]; return logits(argv[3], argc - 4, argv + 4); }
    if (argc == 7 && !strcmp(argv[1], "benchembed")) return benchembed(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]));
    if (argc >= 5 && !strcmp(argv[1], "embed")) return embed(argv[2], argv[3], argc - 4, argv + 4);
    if (argc == 3 && !strcmp(argv[1], "chat")) return chat(argv[2]);
    if (argc == 5 && !strcmp(argv[1], "quantize")) return quantize(argv[2], argv[3], atoi(argv[4]));
    if (argc == 2 && !strcmp(argv[1], "variants")) {
        const char *dir = backends_dir(), *env = getenv("LLAMAREF_CPU");
        char *want = env && *env ? strdup(env) : NULL;
        unsetenv("LLAMAREF_CPU");
        const char *best = pick_variant(dir, 1);
        printf("use %s\n", want ? want : best);
        return 0;
    }
    fprintf(stderr, "usage: llamaref logits MODEL TOKEN... | embed MODEL POOLING TOKEN... | benchembed MODEL THREADS TOKENS BATCH ROUNDS | tokenize MODEL | bench MODEL THREADS PROMPT GEN [BATCH] | trace MODEL NAMES TOKEN... | chat TEMPLATE | quantize IN OUT FTYPE | variants\n");
    return 2;
}
