package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// check holds the objects to each other and to what a real cluster needs.
func (m *manifests) check() []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if len(m.deployments) == 0 || len(m.statefulSets) == 0 || len(m.services) == 0 || len(m.configMaps) == 0 {
		add("k8s: want a Deployment, a StatefulSet, a Service and a ConfigMap at least")
	}
	for _, w := range m.workloads() {
		if !w.selector.Matches(labels.Set(w.template.Labels)) {
			add("%s: its selector does not select its own pods", w.name)
		}
		problems = append(problems, checkPod(w)...)
		for _, v := range w.template.Spec.Volumes {
			if v.ConfigMap != nil && !m.hasConfigMap(v.ConfigMap.Name) {
				add("%s: volume %s names ConfigMap %s, which no manifest makes", w.name, v.Name, v.ConfigMap.Name)
			}
		}
	}
	for _, s := range m.statefulSets {
		if svc := m.service(s.Spec.ServiceName); svc == nil || svc.Spec.ClusterIP != corev1.ClusterIPNone {
			add("StatefulSet %s: serviceName %q is no headless Service here", s.Name, s.Spec.ServiceName)
		}
	}
	for _, s := range m.services {
		ws := m.selected(s.Spec.Selector)
		if len(ws) == 0 {
			add("Service %s: its selector selects no workload's pods", s.Name)
		}
		for _, p := range s.Spec.Ports {
			for _, w := range ws {
				if !w.hasPort(portName(p.TargetPort), p.TargetPort.IntVal) {
					add("Service %s: port %s's target %s is no port of %s", s.Name, p.Name, p.TargetPort.String(), w.name)
				}
			}
		}
	}
	for _, in := range m.ingresses {
		for _, r := range in.Spec.Rules {
			for _, p := range r.HTTP.Paths {
				b := p.Backend.Service
				svc := m.service(b.Name)
				if svc == nil || !hasServicePort(svc, b.Port.Name, b.Port.Number) {
					add("Ingress %s: backend %s port %s%d is no Service port here", in.Name, b.Name, b.Port.Name, b.Port.Number)
				}
			}
		}
	}
	for _, np := range m.policies {
		if len(m.selected(np.Spec.PodSelector.MatchLabels)) == 0 {
			add("NetworkPolicy %s: its podSelector selects no workload's pods", np.Name)
		}
	}
	for _, b := range m.budgets {
		if b.Spec.Selector == nil || len(m.selected(b.Spec.Selector.MatchLabels)) == 0 {
			add("PodDisruptionBudget %s: its selector selects no workload's pods", b.Name)
		}
	}
	return problems
}

// checkPod holds every container to what the recipes promise: non-root,
// a read-only root file system, no privilege escalation, all
// capabilities dropped, a memory limit, readiness and liveness probes on
// ports the container has.
func checkPod(w workload) []string {
	var problems []string
	spec := w.template.Spec
	podNonRoot := spec.SecurityContext != nil && isTrue(spec.SecurityContext.RunAsNonRoot)
	for _, c := range spec.Containers {
		at := w.name + " container " + c.Name
		sc := c.SecurityContext
		switch {
		case sc == nil:
			problems = append(problems, at+": no securityContext")
			continue
		case !podNonRoot && !isTrue(sc.RunAsNonRoot):
			problems = append(problems, at+": may run as root (runAsNonRoot)")
		case !isTrue(sc.ReadOnlyRootFilesystem):
			problems = append(problems, at+": its root file system is writable")
		case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
			problems = append(problems, at+": allows privilege escalation")
		case sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL":
			problems = append(problems, at+": keeps capabilities (drop: [ALL])")
		}
		if _, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok {
			problems = append(problems, at+": no memory limit")
		}
		if _, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok {
			problems = append(problems, at+": no CPU request")
		}
		for kind, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
			if p == nil {
				problems = append(problems, at+": no "+kind+" probe")
			} else if p.HTTPGet != nil && !w.hasPort(portName(p.HTTPGet.Port), p.HTTPGet.Port.IntVal) {
				problems = append(problems, fmt.Sprintf("%s: its %s probe's port %s is none of its ports", at, kind, p.HTTPGet.Port.String()))
			}
		}
	}
	return problems
}

func isTrue(b *bool) bool { return b != nil && *b }

func portName(p intstr.IntOrString) string {
	if p.Type == intstr.String {
		return p.StrVal
	}
	return ""
}

func hasServicePort(s *corev1.Service, name string, number int32) bool {
	for _, p := range s.Spec.Ports {
		if name != "" && p.Name == name || name == "" && p.Port == number {
			return true
		}
	}
	return false
}
