# Builds llama.cpp's server from the source node-llama-cpp bundles (S)
# against the libraries it ships prebuilt (B): only the server, its HTTP
# library and its multimodal part are compiled here (about 2 minutes on
# two cores, where building llama.cpp whole took 8). scripts/llamaserver
# runs it:
#
#   make -f reference/llamacpp/llama-server.mk S=SRC B=BINS O=OUT -j2
#
# The server's build options are llama.cpp's CMake defaults for a CPU
# build without the web UI (ui.cpp: no assets, as LLAMA_BUILD_UI=OFF).
S ?= $(error S: llama.cpp's source tree)
B ?= $(error B: the folder of node-llama-cpp's libllama and libggml)
O ?= $(error O: the output folder)

CXXFLAGS := -O2 -DNDEBUG -std=c++17 -fPIC -w -DGGML_USE_CPU -DLLAMA_SUBPROCESS \
	-I$(O) -I$(S)/tools/server -I$(S)/tools/mtmd -I$(S) -I$(S)/common -I$(S)/vendor \
	-I$(S)/vendor/hash -I$(S)/include -I$(S)/ggml/include
CFLAGS := -O2 -DNDEBUG -fPIC -w -I$(S)/vendor -I$(S)/vendor/hash

MTMD_SRCS := $(filter-out %/mtmd-cli.cpp %/deprecation-warning.cpp,$(wildcard $(S)/tools/mtmd/*.cpp)) \
	$(wildcard $(S)/tools/mtmd/models/*.cpp)
SRCS := $(wildcard $(S)/tools/server/*.cpp) $(MTMD_SRCS) $(S)/vendor/cpp-httplib/httplib.cpp \
	$(S)/vendor/hash/hash.cpp $(O)/ui.cpp
CSRCS := $(S)/vendor/hash/xxhash/xxhash.c $(S)/vendor/hash/sha256/sha256.c
# sha1.c is C++ (it lives in a namespace), as llama.cpp's CMake builds it
CXXCSRCS := $(S)/vendor/hash/sha1/sha1.c
OBJS := $(patsubst %,$(O)/obj/%.o,$(notdir $(SRCS) $(CSRCS) $(CXXCSRCS)))
LIBS := $(notdir $(wildcard $(B)/libllama-common.so $(B)/libllama.v*.so $(B)/libggml.v*.so $(B)/libggml-base.so))

vpath %.cpp $(S)/tools/server $(S)/tools/mtmd $(S)/tools/mtmd/models $(S)/vendor/cpp-httplib $(S)/vendor/hash $(O)
vpath %.c $(S)/vendor/hash/xxhash $(S)/vendor/hash/sha1 $(S)/vendor/hash/sha256

$(O)/llama-server: $(OBJS)
	$(CXX) -o $@ $(OBJS) -L$(B) $(addprefix -l:,$(LIBS)) -Wl,-rpath,$(B) -lpthread

$(O)/obj/%.cpp.o: %.cpp | $(O)/obj
	$(CXX) $(CXXFLAGS) -c $< -o $@
$(O)/obj/sha1.c.o: sha1.c | $(O)/obj
	$(CXX) -x c++ $(CXXFLAGS) -c $< -o $@
$(O)/obj/%.c.o: %.c | $(O)/obj
	$(CC) $(CFLAGS) -c $< -o $@
$(O)/obj:
	mkdir -p $@
