// Package e2e holds the end-to-end tests of the run: each measures a
// server whose timing is known exactly (internal/scripted's, or a real
// llama.cpp server) through tpsbench.Run or a Session, and checks the
// figures against that server's own log. It has no code of its own; the
// tests of one package's parts stay beside that package.
package e2e
