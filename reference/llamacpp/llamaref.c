// llamaref: llama.cpp's view of a GGUF model, through the libllama C API
// that the npm package node-llama-cpp ships prebuilt. tpsbench's
// conformance test and engine benchmark compare against it.
//
//   llamaref logits   MODEL TOKEN...          logits of every position (one token a decode), one line each
//   llamaref tokenize MODEL                   token ids of each stdin line (with BOS)
//   llamaref bench    MODEL THREADS PROMPT GEN [BATCH]
//                     prompt-processing and generation tokens/s (JSON)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static struct llama_model *load(const char *path) {
    llama_log_set(quiet, NULL);
    const char *dir = getenv("LLAMAREF_BACKENDS");
#ifdef LLAMAREF_BACKENDS_DIR
    if (!dir) dir = LLAMAREF_BACKENDS_DIR;
#endif
    if (dir) ggml_backend_load_all_from_path(dir); else ggml_backend_load_all();
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    struct llama_model *m = llama_model_load_from_file(path, mp);
    if (!m) { fprintf(stderr, "llamaref: cannot load %s\n", path); exit(1); }
    return m;
}

static struct llama_context *context(struct llama_model *m, int threads, int n_ctx, int n_batch, int n_seq, int f32_cache) {
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = n_ctx;
    cp.n_seq_max = n_seq;
    cp.kv_unified = true;
    cp.n_batch = n_batch;
    cp.n_ubatch = n_batch;
    cp.n_threads = threads;
    cp.n_threads_batch = threads;
    cp.no_perf = 1;
    cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    if (f32_cache) { cp.type_k = GGML_TYPE_F32; cp.type_v = GGML_TYPE_F32; }
    struct llama_context *c = llama_init_from_model(m, cp);
    if (!c) { fprintf(stderr, "llamaref: cannot make a context\n"); exit(1); }
    return c;
}

static int logits(const char *path, int n, char **toks) {
    struct llama_model *m = load(path);
    struct llama_context *c = context(m, 1, 512, 512, 1, 1);
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
        if (llama_decode(c, b) != 0) { fprintf(stderr, "llamaref: decode failed\n"); return 1; }
        float *l = llama_get_logits_ith(c, 0);
        for (int j = 0; j < nv; j++) printf(j ? " %.7g" : "%.7g", l[j]);
        printf("\n");
    }
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
        int n = llama_tokenize(v, line, (int)len, toks, 1 << 14, true, false);
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
    printf("{\"engine\":\"llama.cpp\",\"threads\":%d,\"batch\":%d,\"prompt_tps\":%.2f,\"gen_tps\":%.2f}\n",
           threads, batch, np * batch / pp, ng * batch / tg);
    llama_batch_free(b);
    llama_free(c);
    llama_model_free(m);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "logits")) return logits(argv[2], argc - 3, argv + 3);
    if (argc == 3 && !strcmp(argv[1], "tokenize")) return tokenize(argv[2]);
    if ((argc == 6 || argc == 7) && !strcmp(argv[1], "bench"))
        return bench(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), argc == 7 ? atoi(argv[6]) : 1);
    fprintf(stderr, "usage: llamaref logits MODEL TOKEN... | tokenize MODEL | bench MODEL THREADS PROMPT GEN [BATCH]\n");
    return 2;
}
