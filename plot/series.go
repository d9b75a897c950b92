package plot

import (
	"image"
	"image/color"
	"math"
)

// margins of the plot area: room for tick labels on the left and below,
// the title above, the legend on the right.
const (
	marginLeft   = 72
	marginTop    = 44
	marginRight  = 190
	marginBottom = 52
)

// drawSeries draws a chart of series.
func drawSeries(cv canvas, c Chart) (Layout, error) {
	l := Layout{Area: image.Rect(marginLeft, marginTop, Width-marginRight, Height-marginBottom), logX: c.LogX}
	first := true
	for _, s := range c.Series {
		for _, p := range s.Points {
			if !finite(p) || (c.LogX && p.X <= 0) {
				continue
			}
			if first {
				l.xmin, l.xmax, l.ymin, l.ymax, first = p.X, p.X, p.Y, p.Y, false
			}
			l.xmin, l.xmax = math.Min(l.xmin, p.X), math.Max(l.xmax, p.X)
			l.ymin, l.ymax = math.Min(l.ymin, p.Y), math.Max(l.ymax, p.Y)
		}
	}
	if first {
		return l, ErrEmpty
	}
	l.ymin = math.Min(l.ymin, 0) // figures here are counts, times and rates: from 0
	l.ymax *= 1.05
	if l.ymax <= l.ymin {
		l.ymax = l.ymin + 1
	}
	if l.xmax <= l.xmin {
		l.xmin, l.xmax = l.xmin*0.9-1, l.xmax*1.1+1
		if c.LogX {
			l.xmin, l.xmax = l.xmin/2+1, l.xmax*2
		}
	}
	var xt []float64
	if c.LogX {
		xt = logTicks(l.xmin, l.xmax)
	} else {
		xt = ticks(l.xmin, l.xmax, 8)
	}
	frame(cv, l, c, xt, ticks(l.ymin, l.ymax, 6))
	for i, s := range c.Series {
		col := l.Color(i)
		var prev image.Point
		drawn := false
		for _, p := range s.Points {
			if !finite(p) || (c.LogX && p.X <= 0) {
				continue
			}
			at := l.Pixel(p)
			if !s.Marks && drawn {
				cv.line(prev, at, 2, col)
			}
			cv.box(image.Rect(at.X-3, at.Y-3, at.X+4, at.Y+4), col)
			prev, drawn = at, true
		}
		legend(cv, i, s.Name, col)
	}
	return l, nil
}

func finite(p Point) bool {
	return !math.IsNaN(p.X) && !math.IsInf(p.X, 0) && !math.IsNaN(p.Y) && !math.IsInf(p.Y, 0)
}

// frame draws the title, the grid at the ticks, the axes and labels.
func frame(cv canvas, l Layout, c Chart, xt, yt []float64) {
	cv.text(image.Pt(marginLeft, marginTop-22), fit(c.Title, Width-marginLeft-20), ink)
	if c.YLabel != "" {
		cv.text(image.Pt(marginLeft, marginTop-6), fit(c.YLabel, Width-marginLeft-marginRight), ink)
	}
	a := l.Area
	for _, v := range yt {
		y := l.Pixel(Point{X: l.xmin, Y: v}).Y
		cv.box(image.Rect(a.Min.X, y, a.Max.X, y+1), gridInk)
		s := label(v)
		cv.text(image.Pt(a.Min.X-8-textWidth(s), y+4), s, ink)
	}
	for _, v := range xt {
		x := l.Pixel(Point{X: v, Y: l.ymin}).X
		cv.box(image.Rect(x, a.Min.Y, x+1, a.Max.Y), gridInk)
		s := label(v)
		cv.text(image.Pt(x-textWidth(s)/2, a.Max.Y+16), s, ink)
	}
	cv.box(image.Rect(a.Min.X, a.Min.Y, a.Min.X+1, a.Max.Y), ink)
	cv.box(image.Rect(a.Min.X, a.Max.Y-1, a.Max.X, a.Max.Y), ink)
	if c.XLabel != "" {
		cv.text(image.Pt(a.Min.X+(a.Dx()-textWidth(c.XLabel))/2, a.Max.Y+38), fit(c.XLabel, a.Dx()), ink)
	}
}

// legend names the i-th series beside its colour, right of the plot.
func legend(cv canvas, i int, name string, col color.RGBA) {
	x, y := Width-marginRight+16, marginTop+8+i*18
	if y > Height-marginBottom {
		return // more series than room: the first are named
	}
	cv.box(image.Rect(x, y-8, x+12, y+2), col)
	cv.text(image.Pt(x+18, y+2), fit(name, marginRight-40), ink)
}
