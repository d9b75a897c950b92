package plot

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"strconv"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// canvas is an image drawn on with lines, boxes and text.
type canvas struct{ img *image.RGBA }

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, &image.Uniform{C: c}, image.Point{}, draw.Src)
}

func (cv canvas) box(r image.Rectangle, c color.RGBA) { fill(cv.img, r.Intersect(cv.img.Bounds()), c) }

// line draws from a to b, width pixels thick (Bresenham's walk, a
// square of the width at each step).
func (cv canvas) line(a, b image.Point, width int, c color.RGBA) {
	dx, dy := abs(b.X-a.X), -abs(b.Y-a.Y)
	sx, sy := sign(b.X-a.X), sign(b.Y-a.Y)
	e := dx + dy
	lo, hi := -(width-1)/2, width/2
	for x, y := a.X, a.Y; ; {
		cv.box(image.Rect(x+lo, y+lo, x+hi+1, y+hi+1), c)
		if x == b.X && y == b.Y {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x += sx
		}
		if e2 <= dx {
			e += dx
			y += sy
		}
	}
}

// face is the one typeface: 7 by 13 pixels a character.
var face = basicfont.Face7x13

// text writes s with its baseline's left end at p.
func (cv canvas) text(p image.Point, s string, c color.RGBA) {
	d := font.Drawer{Dst: cv.img, Src: &image.Uniform{C: c}, Face: face, Dot: fixed.P(p.X, p.Y)}
	d.DrawString(s)
}

// textWidth is how wide s is drawn.
func textWidth(s string) int { return font.MeasureString(face, s).Round() }

// fit cuts s to at most w pixels, marking the cut with "...".
func fit(s string, w int) string {
	if textWidth(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && textWidth(string(r)+"...") > w {
		r = r[:len(r)-1]
	}
	return string(r) + "..."
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func sign(v int) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}

// ticks are round values from lo to hi, about n of them: steps of 1, 2
// or 5 times a power of ten.
func ticks(lo, hi float64, n int) []float64 {
	if !(hi > lo) {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if step = m * mag; step >= raw {
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out
}

// logTicks are the powers of two from lo to hi where they are whole and
// few (load levels that double: 1, 2, 4, 8), else 1, 2 and 5 times the
// powers of ten.
func logTicks(lo, hi float64) []float64 {
	var out []float64
	if lo >= 1 && hi/lo <= 1<<12 {
		for v := math.Pow(2, math.Ceil(math.Log2(lo))); v <= hi*(1+1e-9); v *= 2 {
			out = append(out, v)
		}
		return out
	}
	for p := math.Floor(math.Log10(lo)); p <= math.Ceil(math.Log10(hi)); p++ {
		for _, m := range []float64{1, 2, 5} {
			if v := m * math.Pow(10, p); v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
				out = append(out, v)
			}
		}
	}
	return out
}

// label is a tick's value as short text.
func label(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return short(v/1e6) + "M"
	case a >= 1e4:
		return short(v/1e3) + "k"
	}
	return short(v)
}

// short is v to four significant digits, without trailing zeros.
func short(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
