package mock

import (
	"testing"

	"github.com/replymock/replymock/mock/internal/fault"
)

// The fault registry's owner of the faults for every session is the
// server's AllSessions: the Server hands its sessions' ids on as they are.
func TestFaultRegistryAllSessions(t *testing.T) {
	if fault.AllSessions != AllSessions {
		t.Errorf("fault.AllSessions = %q, AllSessions = %q", fault.AllSessions, AllSessions)
	}
}
