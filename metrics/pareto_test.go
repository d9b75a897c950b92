package metrics

import (
	"reflect"
	"testing"
)

// TestParetoFront: worked by hand. (1,9), (5,5) and (9,1) trade one
// figure for the other; (4,4) is beaten by (5,5) on both; (5,3) ties
// (5,5) on x and loses on y; two equal points both stand.
func TestParetoFront(t *testing.T) {
	cases := []struct {
		xs, ys []float64
		want   []bool
	}{
		{[]float64{1, 5, 9, 4, 5}, []float64{9, 5, 1, 4, 3}, []bool{true, true, true, false, false}},
		{[]float64{2, 2}, []float64{3, 3}, []bool{true, true}},
		{[]float64{7}, []float64{7}, []bool{true}},
		{nil, nil, []bool{}},
	}
	for _, c := range cases {
		if got := ParetoFront(c.xs, c.ys); !reflect.DeepEqual(got, c.want) {
			t.Errorf("front of %v, %v: %v, want %v", c.xs, c.ys, got, c.want)
		}
	}
}
