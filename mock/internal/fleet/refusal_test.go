package fleet

import (
	"context"
	"errors"
	"testing"
)

// TestRefusal: an error reply of a working Redis (out of memory, unable
// to persist, the command's own) is the write's refusal, answered as it
// is; one of a Redis that cannot serve now (loading, busy, a replica
// read-only, no master, no auth) is the store out of reach, as a
// dropped connection and no answer are; a nil reply is no error.
func TestRefusal(t *testing.T) {
	_, s := open(t)
	ctx := context.Background()
	reply := func(msg string) error {
		return s.client.Do(ctx, s.client.B().Eval().Script("return redis.error_reply(ARGV[1])").Numkeys(0).Arg(msg).Build()).Error()
	}
	for _, tc := range []struct {
		reply   string
		refusal bool
	}{
		{"OOM command not allowed when used memory > 'maxmemory'.", true},
		{"MISCONF Redis is configured to save RDB snapshots", true},
		{"NOREPLICAS Not enough good replicas to write.", true},
		{"ERR Error running script", true},
		{"WRONGTYPE Operation against a key holding the wrong kind of value", true},
		{"LOADING Redis is loading the dataset in memory", false},
		{"BUSY Redis is busy running a script.", false},
		{"MASTERDOWN Link with MASTER is down", false},
		{"READONLY You can't write against a read only replica.", false},
		{"NOAUTH Authentication required.", false},
		{"TRYAGAIN Multiple keys request during rehashing of slot", false},
	} {
		err := reply(tc.reply)
		if err == nil {
			t.Fatalf("%s: no error", tc.reply)
		}
		if _, got := refusal(err); got != tc.refusal {
			t.Errorf("%s: refusal %v, want %v", tc.reply, got, tc.refusal)
		}
	}
	nilReply := s.client.Do(ctx, s.client.B().Get().Key("no such key").Build()).Error()
	if _, got := refusal(nilReply); got || nilReply == nil {
		t.Errorf("a nil reply (%v) taken for a refusal", nilReply)
	}
	if _, got := refusal(errors.New("EOF")); got {
		t.Error("a dropped connection taken for a refusal")
	}
	if _, got := refusal(nil); got {
		t.Error("no error taken for a refusal")
	}
}
