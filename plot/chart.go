// Package plot draws line, point and lane charts as PNG images in pure
// Go: axes with round ticks, a grid, a legend, series in colours apart.
// It knows nothing of tpsbench's figures; report makes the charts.
package plot

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
)

// Point is a value at a place on the x axis.
type Point struct{ X, Y float64 }

// Series is one named set of points, drawn as a line through them in
// order (Marks false) or as marks (Marks true).
type Series struct {
	Name   string
	Points []Point
	Marks  bool
}

// Lane is a row of a lane chart: named spans on one line (a session's
// turns from send to end).
type Lane struct {
	Name  string
	Spans [][2]float64 // from, to on the x axis
}

// Chart is one picture: series over two axes, or lanes over the x axis.
type Chart struct {
	Title, XLabel, YLabel string
	Series                []Series
	Lanes                 []Lane // a lane chart when set: Series is ignored
	// LogX draws the x axis in powers of ten (load levels that double).
	LogX bool
}

// Size is the picture's, in pixels.
const (
	Width  = 960
	Height = 540
)

// Layout says where a rendered chart put its data: the plot area and
// the mapping of a data point to its pixel.
type Layout struct {
	Area       image.Rectangle
	xmin, xmax float64
	ymin, ymax float64
	logX       bool
	laneHeight float64
	laneCount  int
}

// Pixel is where a data point lies in the image.
func (l Layout) Pixel(p Point) image.Point {
	x := p.X
	lo, hi := l.xmin, l.xmax
	if l.logX {
		x, lo, hi = math.Log10(x), math.Log10(lo), math.Log10(hi)
	}
	fx := (x - lo) / (hi - lo)
	fy := (p.Y - l.ymin) / (l.ymax - l.ymin)
	return image.Pt(l.Area.Min.X+int(math.Round(fx*float64(l.Area.Dx()-1))), l.Area.Max.Y-1-int(math.Round(fy*float64(l.Area.Dy()-1))))
}

// Color is the colour the i-th series (or lane) is drawn in.
func (l Layout) Color(i int) color.RGBA { return palette[i%len(palette)] }

// palette holds colours told apart in colour-blind vision (Okabe and
// Ito's), darkest first.
var palette = []color.RGBA{
	{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{86, 180, 233, 255}, {230, 159, 0, 255}, {0, 0, 0, 255}, {240, 228, 66, 255},
}

var (
	background = color.RGBA{255, 255, 255, 255}
	ink        = color.RGBA{40, 40, 40, 255}
	gridInk    = color.RGBA{225, 225, 225, 255}
)

// ErrEmpty is a chart with nothing to draw.
var ErrEmpty = errors.New("nothing to draw")

// Render draws c and writes it to w as a PNG.
func Render(w io.Writer, c Chart) (Layout, error) {
	img, l, err := Draw(c)
	if err != nil {
		return l, err
	}
	if err := png.Encode(w, img); err != nil {
		return l, fmt.Errorf("encoding %q: %w", c.Title, err)
	}
	return l, nil
}

// Draw draws c into a new image.
func Draw(c Chart) (*image.RGBA, Layout, error) {
	img := image.NewRGBA(image.Rect(0, 0, Width, Height))
	fill(img, img.Bounds(), background)
	cv := canvas{img}
	if len(c.Lanes) > 0 {
		l, err := drawLanes(cv, c)
		return img, l, err
	}
	l, err := drawSeries(cv, c)
	return img, l, err
}
