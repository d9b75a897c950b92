package client

import "strings"

// Sent is what every request of this client carries besides its model,
// prompt and budget, as the body has it (the API's own field names,
// HTTPConfig.Extra's fields over them): what its figures were measured
// under, for a report to say.
func (c *HTTP) Sent() map[string]any {
	p := protocolOf(c.cfg.API)
	b := p.body(&c.cfg, &Request{MaxTokens: 1, Prompt: "-"})
	for k, v := range c.cfg.Extra {
		b[k] = v
	}
	delete(b, "model")
	for _, field := range append([]string{p.prompt}, p.budget...) {
		deleteField(b, strings.Split(field, "."))
	}
	return b
}

// deleteField removes the field at path (a field within fields), and the
// objects it leaves empty.
func deleteField(m map[string]any, path []string) {
	if len(path) == 1 {
		delete(m, path[0])
		return
	}
	inner, ok := m[path[0]].(map[string]any)
	if !ok {
		return
	}
	deleteField(inner, path[1:])
	if len(inner) == 0 {
		delete(m, path[0])
	}
}
