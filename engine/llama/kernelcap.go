package llama

import (
	"fmt"
	"os"
)

// KernelsEnv names the environment variable that caps the kernels the
// engine picks: "avx2" leaves the AVX-512 ones out, "go" every assembly
// kernel. Unset, the engine takes the widest the CPU has. The test
// command sets it so that one machine runs the paths of machines with
// less (a kernel path no test runs is one a user meets first).
const KernelsEnv = "TPSBENCH_ENGINE_KERNELS"

// kernelCap is the widest kernel family allowed.
type kernelCap int

const (
	capGo kernelCap = iota
	capAVX2
	capAVX512
)

var capNames = map[string]kernelCap{"go": capGo, "avx2": capAVX2, "avx512": capAVX512}

// allowedKernels is the cap KernelsEnv sets, and kernelsEnvErr what
// was wrong with its value (the widest is allowed then, and Load fails).
var allowedKernels, kernelsEnvErr = parseKernelCap(os.Getenv(KernelsEnv))

func parseKernelCap(s string) (kernelCap, error) {
	if s == "" {
		return capAVX512, nil
	}
	c, ok := capNames[s]
	if !ok {
		return capAVX512, fmt.Errorf("%s=%q: want avx512, avx2 or go", KernelsEnv, s)
	}
	return c, nil
}
