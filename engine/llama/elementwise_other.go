//go:build !amd64 || purego

package llama

func sumSquares(x []float32) float64 { return sumSquaresGo(x) }

func scaleMul(out, x, w []float32, scale float32) { scaleMulGo(out, x, w, scale) }

func rope(x []float32, heads, hd int, cs []float32, neox bool) { ropeGo(x, heads, hd, cs, neox) }

func drawBlocks(p []float32, r float64) (int, float64) { return drawBlocksGo(p, r) }

func indexF32(x []float32, v float32) int { return indexF32Go(x, v, 0) }
