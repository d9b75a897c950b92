package otlp

import "strconv"

// The OTLP/HTTP JSON encoding (opentelemetry-proto, its JSON mapping):
// field names in lowerCamelCase, 64-bit integers as decimal strings,
// trace and span ids as hex, enums as their numbers.

type keyValue struct {
	Key   string   `json:"key"`
	Value anyValue `json:"value"`
}

type anyValue struct {
	String *string     `json:"stringValue,omitempty"`
	Int    *string     `json:"intValue,omitempty"` // an int64, as a decimal string
	Double *float64    `json:"doubleValue,omitempty"`
	Bool   *bool       `json:"boolValue,omitempty"`
	Array  *arrayValue `json:"arrayValue,omitempty"`
}

type arrayValue struct {
	Values []anyValue `json:"values"`
}

func str(k, v string) keyValue { return keyValue{Key: k, Value: anyValue{String: &v}} }
func num(k string, v int64) keyValue {
	s := strconv.FormatInt(v, 10)
	return keyValue{Key: k, Value: anyValue{Int: &s}}
}
func flag(k string, v bool) keyValue { return keyValue{Key: k, Value: anyValue{Bool: &v}} }
func strs(k string, vs ...string) keyValue {
	a := &arrayValue{}
	for _, v := range vs {
		a.Values = append(a.Values, anyValue{String: &v})
	}
	return keyValue{Key: k, Value: anyValue{Array: a}}
}

// nanos is a time as the encoding writes a fixed64.
func nanos(unixNS int64) string { return strconv.FormatInt(max(unixNS, 0), 10) }

type resource struct {
	Attributes []keyValue `json:"attributes"`
}

type scope struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// traces is an ExportTraceServiceRequest.
type traces struct {
	ResourceSpans []resourceSpans `json:"resourceSpans"`
}

type resourceSpans struct {
	Resource   resource     `json:"resource"`
	ScopeSpans []scopeSpans `json:"scopeSpans"`
}

type scopeSpans struct {
	Scope scope  `json:"scope"`
	Spans []span `json:"spans"`
}

// Span kinds and status codes, as the protocol numbers them.
const (
	spanKindClient  = 3
	statusCodeOK    = 1
	statusCodeError = 2
)

type span struct {
	TraceID    string     `json:"traceId"`
	SpanID     string     `json:"spanId"`
	Name       string     `json:"name"`
	Kind       int        `json:"kind"`
	Start      string     `json:"startTimeUnixNano"`
	End        string     `json:"endTimeUnixNano"`
	Attributes []keyValue `json:"attributes"`
	Events     []event    `json:"events,omitempty"`
	Status     status     `json:"status"`
}

type event struct {
	Time       string     `json:"timeUnixNano"`
	Name       string     `json:"name"`
	Attributes []keyValue `json:"attributes,omitempty"`
}

type status struct {
	Code    int    `json:"code"`
	Message string `json:"message,omitempty"`
}

// metricsRequest is an ExportMetricsServiceRequest.
type metricsRequest struct {
	ResourceMetrics []resourceMetrics `json:"resourceMetrics"`
}

type resourceMetrics struct {
	Resource     resource       `json:"resource"`
	ScopeMetrics []scopeMetrics `json:"scopeMetrics"`
}

type scopeMetrics struct {
	Scope   scope    `json:"scope"`
	Metrics []metric `json:"metrics"`
}

// aggregationCumulative is the temporality of every metric sent: each
// point counts from the exporter's start.
const aggregationCumulative = 2

type metric struct {
	Name        string     `json:"name"`
	Description string     `json:"description,omitempty"`
	Unit        string     `json:"unit,omitempty"`
	Histogram   *histogram `json:"histogram,omitempty"`
	Sum         *sum       `json:"sum,omitempty"`
}

type histogram struct {
	DataPoints  []histogramPoint `json:"dataPoints"`
	Temporality int              `json:"aggregationTemporality"`
}

type histogramPoint struct {
	Attributes   []keyValue `json:"attributes"`
	Start        string     `json:"startTimeUnixNano"`
	Time         string     `json:"timeUnixNano"`
	Count        string     `json:"count"`
	Sum          float64    `json:"sum"`
	BucketCounts []string   `json:"bucketCounts"`
	Bounds       []float64  `json:"explicitBounds"`
	Min          float64    `json:"min"`
	Max          float64    `json:"max"`
}

type sum struct {
	DataPoints  []numberPoint `json:"dataPoints"`
	Temporality int           `json:"aggregationTemporality"`
	Monotonic   bool          `json:"isMonotonic"`
}

type numberPoint struct {
	Attributes []keyValue `json:"attributes"`
	Start      string     `json:"startTimeUnixNano"`
	Time       string     `json:"timeUnixNano"`
	AsInt      string     `json:"asInt"`
}
