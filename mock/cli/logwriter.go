package cli

import (
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

// logWriter buffers what is written to it, the log, and writes it to out
// in blocks, in order: at most interval after the first byte of a block,
// when a block would exceed limit bytes, and on Close. Lines keep being
// buffered while a block is written. After Close, writes go straight out.
//
// A crash that runs no deferred call of run (a panic in another
// goroutine, a fatal runtime error such as running out of memory or a
// concurrent map write, SIGKILL) loses what is buffered: the lines logged
// in at most the last interval, and never more than limit bytes.
type logWriter struct {
	out      io.Writer
	interval time.Duration
	limit    int
	timer    *time.Timer // flushes interval after the first byte of a block

	writeMu sync.Mutex // held while a block is written to out, so that blocks go out in order; guards spare
	spare   []byte     // the block written last, emptied for reuse

	mu     sync.Mutex // guards the fields below; never held while writing to out
	buf    []byte
	armed  bool // the timer will flush buf
	closed bool
}

func newLogWriter(out io.Writer, interval time.Duration, limit int) *logWriter {
	w := &logWriter{out: out, interval: interval, limit: limit}
	w.timer = time.AfterFunc(time.Hour, func() { w.Flush() })
	w.timer.Stop()
	return w
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	if !w.closed && len(w.buf)+len(p) <= w.limit {
		if w.buf == nil {
			w.buf = make([]byte, 0, w.limit)
		}
		w.buf = append(w.buf, p...)
		if !w.armed {
			w.armed = true
			w.timer.Reset(w.interval)
		}
		w.mu.Unlock()
		return len(p), nil
	}
	w.mu.Unlock()
	// Full or closed: what is buffered goes first, then p.
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	err := w.flushLocked()
	if _, werr := w.out.Write(p); werr != nil {
		return 0, werr
	}
	return len(p), err
}

// Flush writes what is buffered.
func (w *logWriter) Flush() error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	return w.flushLocked()
}

// flushLocked writes the buffer, with w.writeMu held; lines written
// meanwhile go to the spare buffer.
func (w *logWriter) flushLocked() error {
	w.mu.Lock()
	block := w.buf
	w.buf, w.spare = w.spare, nil
	w.armed = false
	w.mu.Unlock()
	var err error
	if len(block) > 0 {
		_, err = w.out.Write(block)
	}
	w.spare = block[:0]
	return err
}

// Close writes what is buffered; later writes go straight to out.
func (w *logWriter) Close() error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.timer.Stop()
	return w.flushLocked()
}

func newLogger(format string, level slog.Level, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(newTextHandler(w, level)) // slog.TextHandler's lines, for less
}
