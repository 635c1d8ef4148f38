package cli

import (
	"bufio"
	"io"
	"log/slog"
	"sync"
	"time"
)

// The log buffer: lines reach stderr at most logFlushInterval after they
// are logged, or sooner when logBufferSize bytes are waiting.
const (
	logFlushInterval = 100 * time.Millisecond
	logBufferSize    = 64 << 10
)

// logWriter buffers the log on its way to stderr, so that a request's
// line costs no write of its own. What it holds goes out within an
// interval and on Close; after Close, writes go straight out.
//
// A crash that runs no deferred call of run (a panic in another
// goroutine, a fatal runtime error, SIGKILL) loses what is buffered: at
// most the lines of the last interval.
type logWriter struct {
	out      io.Writer
	interval time.Duration
	timer    *time.Timer // flushes the buffer interval after its first line

	mu     sync.Mutex // guards buf and closed
	buf    *bufio.Writer
	closed bool
}

func newLogWriter(out io.Writer, interval time.Duration, size int) *logWriter {
	w := &logWriter{out: out, interval: interval, buf: bufio.NewWriterSize(out, size)}
	w.timer = time.AfterFunc(interval, w.flush)
	w.timer.Stop()
	return w
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.out.Write(p)
	}
	if w.buf.Buffered() == 0 {
		w.timer.Reset(w.interval)
	}
	return w.buf.Write(p)
}

func (w *logWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Flush()
}

// Close writes what is buffered; later writes go straight out.
func (w *logWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	w.timer.Stop()
	return w.buf.Flush()
}

// newLogger is the log of --log-format and --log-level, written to w.
func newLogger(format string, level slog.Level, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
