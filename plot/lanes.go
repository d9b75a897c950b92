package plot

import (
	"image"
	"math"
)

// maxLanes bounds a lane chart's rows: past it the first are drawn.
const maxLanes = 48

// drawLanes draws a lane chart: each lane a row, its spans as bars.
func drawLanes(cv canvas, c Chart) (Layout, error) {
	lanes := c.Lanes[:min(len(c.Lanes), maxLanes)]
	l := Layout{Area: image.Rect(marginLeft+60, marginTop, Width-40, Height-marginBottom), laneCount: len(lanes)}
	first := true
	for _, ln := range lanes {
		for _, sp := range ln.Spans {
			if math.IsNaN(sp[0]) || math.IsNaN(sp[1]) || math.IsInf(sp[0], 0) || math.IsInf(sp[1], 0) {
				continue
			}
			if first {
				l.xmin, l.xmax, first = sp[0], sp[1], false
			}
			l.xmin, l.xmax = math.Min(l.xmin, math.Min(sp[0], sp[1])), math.Max(l.xmax, math.Max(sp[0], sp[1]))
		}
	}
	if first {
		return l, ErrEmpty
	}
	l.xmin = math.Min(l.xmin, 0)
	if l.xmax <= l.xmin {
		l.xmax = l.xmin + 1
	}
	l.ymin, l.ymax = 0, float64(len(lanes))
	frame(cv, l, c, ticks(l.xmin, l.xmax, 8), nil)
	row := float64(l.Area.Dy()) / float64(len(lanes))
	l.laneHeight = row
	for i, ln := range lanes {
		col := l.Color(i)
		top := l.Area.Min.Y + int(float64(i)*row)
		h := max(1, int(row*0.7))
		for _, sp := range ln.Spans {
			a, b := l.Pixel(Point{X: sp[0]}).X, l.Pixel(Point{X: sp[1]}).X
			cv.box(image.Rect(a, top+1, max(b, a+1)+1, top+1+h), col)
		}
		if row >= 10 {
			cv.text(image.Pt(marginLeft-50, top+min(h, 10)+1), fit(ln.Name, 100), ink)
		}
	}
	return l, nil
}

// LanePixel is where the span of lane i at x lies in a lane chart.
func (l Layout) LanePixel(i int, x float64) image.Point {
	top := l.Area.Min.Y + int(float64(i)*l.laneHeight)
	return image.Pt(l.Pixel(Point{X: x}).X, top+1+max(1, int(l.laneHeight*0.7))/2)
}
