package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	"github.com/tpsbench/tpsbench/internal/httpserve"
)

// badRequest is a 400 naming the field at fault.
type badRequest struct{ param, msg string }

func (b badRequest) Error() string { return b.msg }

// readBody reads a request's body, at most maxBody bytes of it, within
// httpserve.BodyTimeout.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := httpserve.ReadBody(w, r, maxBody)
	if err != nil {
		return nil, badRequest{"", fmt.Sprintf("reading the body: %v (limit %d bytes)", err, maxBody)}
	}
	return body, nil
}

// decode reads a JSON body into v; every error is a badRequest naming the
// field at fault.
func decode(body []byte, v any) error {
	err := json.Unmarshal(body, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "the body"
		}
		return badRequest{te.Field, fmt.Sprintf("%s: want %s, got %s", field, jsonKind(te.Type), te.Value)}
	}
	var br badRequest
	if errors.As(err, &br) {
		return br
	}
	return badRequest{"", "the body is not valid JSON: " + err.Error()}
}

// jsonKind names what a Go type decodes from, as a client writing JSON
// thinks of it.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}
