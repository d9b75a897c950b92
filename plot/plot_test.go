package plot

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"testing"
)

// decoded renders c and decodes the PNG it wrote, as a viewer would.
func decoded(t *testing.T, c Chart) (image.Image, Layout) {
	t.Helper()
	var buf bytes.Buffer
	l, err := Render(&buf, c)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("the PNG does not decode: %v", err)
	}
	if b := img.Bounds(); b.Dx() != Width || b.Dy() != Height {
		t.Fatalf("a picture of %v", b)
	}
	return img, l
}

func same(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	return uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(b>>8) == want.B
}

// TestSeriesDrawnWhereTheirPointsAre: each point of each series is drawn
// in the series' colour at the pixel its values map to, a line joins a
// series' points (its midpoint is drawn), marks do not; the plot area's
// empty places are background; the legend shows each colour.
func TestSeriesDrawnWhereTheirPointsAre(t *testing.T) {
	c := Chart{Title: "TTFT against concurrency", XLabel: "concurrency", YLabel: "ms", Series: []Series{
		{Name: "p50", Points: []Point{{1, 10}, {2, 12}, {4, 20}, {8, 45}}},
		{Name: "p99", Points: []Point{{1, 30}, {8, 120}}, Marks: true},
	}}
	img, l := decoded(t, c)
	for i, s := range c.Series {
		for _, p := range s.Points {
			if at := l.Pixel(p); !same(img.At(at.X, at.Y), l.Color(i)) {
				t.Errorf("%s at %v: pixel %v is %v, want %v", s.Name, p, at, img.At(at.X, at.Y), l.Color(i))
			}
		}
	}
	// the line of p50 passes midway between its first two points; p99's
	// marks have nothing between them
	a, b := l.Pixel(Point{1, 10}), l.Pixel(Point{2, 12})
	if mid := image.Pt((a.X+b.X)/2, (a.Y+b.Y)/2); !same(img.At(mid.X, mid.Y), l.Color(0)) {
		t.Errorf("no line at %v between %v and %v", mid, a, b)
	}
	a, b = l.Pixel(Point{1, 30}), l.Pixel(Point{8, 120})
	if mid := image.Pt((a.X+b.X)/2, (a.Y+b.Y)/2); same(img.At(mid.X, mid.Y), l.Color(1)) {
		t.Errorf("marks joined at %v", mid)
	}
	if p := l.Pixel(Point{6.5, 105}); !same(img.At(p.X, p.Y), background) {
		t.Errorf("an empty place at %v is %v", p, img.At(p.X, p.Y))
	}
	// the y axis starts at 0 and the highest point is inside the area
	if top := l.Pixel(Point{8, 120}); !top.In(l.Area) || l.Pixel(Point{1, 0}).Y != l.Area.Max.Y-1 {
		t.Errorf("the highest point at %v, 0 at %v, area %v", top, l.Pixel(Point{1, 0}), l.Area)
	}
	for i := range c.Series {
		found := false
		for y := l.Area.Min.Y; y < l.Area.Max.Y && !found; y++ {
			for x := l.Area.Max.X + 1; x < Width && !found; x++ {
				found = same(img.At(x, y), l.Color(i))
			}
		}
		if !found {
			t.Errorf("no legend swatch of series %d's colour", i)
		}
	}
	inked := 0
	for x := marginLeft; x < marginLeft+textWidth(c.Title); x++ {
		for y := marginTop - 34; y < marginTop-18; y++ {
			if same(img.At(x, y), ink) {
				inked++
			}
		}
	}
	if inked < 50 {
		t.Errorf("the title is %d pixels of ink", inked)
	}
}

// TestLogAxis: on a logarithmic x axis equal ratios are equal distances.
func TestLogAxis(t *testing.T) {
	_, l := decoded(t, Chart{LogX: true, Series: []Series{{Name: "s", Points: []Point{{1, 1}, {16, 2}, {256, 3}}}}})
	a, b, c := l.Pixel(Point{1, 1}).X, l.Pixel(Point{16, 1}).X, l.Pixel(Point{256, 1}).X
	if d := (b - a) - (c - b); d < -1 || d > 1 {
		t.Errorf("1, 16 and 256 at x %d, %d, %d", a, b, c)
	}
}

// TestLanes: each lane's spans are bars in its colour from their start
// to their end; nothing is drawn past a span's end.
func TestLanes(t *testing.T) {
	c := Chart{Title: "sessions", XLabel: "s", Lanes: []Lane{{Name: "1", Spans: [][2]float64{{0, 2}, {3, 5}}}, {Name: "2", Spans: [][2]float64{{1, 4}}}}}
	img, l := decoded(t, c)
	for i, ln := range c.Lanes {
		for _, sp := range ln.Spans {
			mid := l.LanePixel(i, (sp[0]+sp[1])/2)
			if !same(img.At(mid.X, mid.Y), l.Color(i)) {
				t.Errorf("lane %d span %v: %v at %v", i, sp, img.At(mid.X, mid.Y), mid)
			}
		}
	}
	if gap := l.LanePixel(0, 2.5); !same(img.At(gap.X, gap.Y), background) && !same(img.At(gap.X, gap.Y), gridInk) {
		t.Errorf("lane 0 drawn between its spans, at %v", gap)
	}
}

// TestNothingToDraw: a chart without a finite point is refused as
// empty; values that are not finite are left out of one that has some.
func TestNothingToDraw(t *testing.T) {
	for _, c := range []Chart{{}, {Series: []Series{{Points: []Point{{math.NaN(), 1}, {1, math.Inf(1)}}}}}, {LogX: true, Series: []Series{{Points: []Point{{0, 1}}}}}, {Lanes: []Lane{{Name: "x"}}}} {
		if _, err := Render(&bytes.Buffer{}, c); !errors.Is(err, ErrEmpty) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if _, l := decoded(t, Chart{Series: []Series{{Points: []Point{{1, 1}, {math.NaN(), 5}, {2, 2}}}}}); l.ymax > 2.2 {
		t.Errorf("a NaN point widened the axis to %v", l.ymax)
	}
}

// TestTicks: round steps of 1, 2 or 5 times a power of ten covering the
// range; logarithmic ones at 1, 2 and 5 of each decade.
func TestTicks(t *testing.T) {
	got := ticks(0, 47, 6)
	want := []float64{0, 10, 20, 30, 40}
	if len(got) != len(want) {
		t.Fatalf("ticks %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("ticks %v, want %v", got, want)
		}
	}
	if got := logTicks(0.5, 30000); len(got) != 15 || got[0] != 0.5 || got[14] != 20000 {
		t.Errorf("log ticks %v", got)
	}
	if got := logTicks(1, 300); len(got) != 9 || got[0] != 1 || got[8] != 256 {
		t.Errorf("log ticks of doubling levels %v", got)
	}
	for v, want := range map[float64]string{1: "1", 2.5: "2.5", 12000: "12k", 3e6: "3M", 0.125: "0.125"} {
		if got := label(v); got != want {
			t.Errorf("label(%v) = %q, want %q", v, got, want)
		}
	}
}
