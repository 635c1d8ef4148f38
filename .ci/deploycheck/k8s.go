package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// manifests are the objects decoded from the k8s folder, by kind.
type manifests struct {
	deployments  []*appsv1.Deployment
	statefulSets []*appsv1.StatefulSet
	services     []*corev1.Service
	configMaps   []*corev1.ConfigMap
	ingresses    []*networkingv1.Ingress
	policies     []*networkingv1.NetworkPolicy
	budgets      []*policyv1.PodDisruptionBudget
}

// checkKubernetes decodes every document of dir's YAML files strictly,
// then checks the objects against each other.
func checkKubernetes(dir string) []string {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{appsv1.AddToScheme, corev1.AddToScheme, networkingv1.AddToScheme, policyv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return []string{err.Error()}
		}
	}
	decoder := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return []string{fmt.Sprintf("%s: no manifests (%v)", dir, err)}
	}
	var m manifests
	var problems []string
	for _, file := range files {
		docs, err := documents(file)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", file, err))
			continue
		}
		for i, doc := range docs {
			obj, _, err := decoder.Decode(doc, nil, nil)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: document %d: %v", file, i+1, err))
				continue
			}
			if err := m.add(obj); err != nil {
				problems = append(problems, fmt.Sprintf("%s: document %d: %v", file, i+1, err))
			}
		}
	}
	return append(problems, m.check()...)
}

// documents splits a YAML file into its non-empty documents.
func documents(file string) ([][]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			docs = append(docs, doc)
		}
	}
}

// stripComments drops the lines that are only a comment.
func stripComments(doc []byte) []byte {
	var out []byte
	for line := range bytes.Lines(doc) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			out = append(out, line...)
		}
	}
	return out
}

func (m *manifests) add(obj runtime.Object) error {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		m.deployments = append(m.deployments, o)
	case *appsv1.StatefulSet:
		m.statefulSets = append(m.statefulSets, o)
	case *corev1.Service:
		m.services = append(m.services, o)
	case *corev1.ConfigMap:
		m.configMaps = append(m.configMaps, o)
	case *networkingv1.Ingress:
		m.ingresses = append(m.ingresses, o)
	case *networkingv1.NetworkPolicy:
		m.policies = append(m.policies, o)
	case *policyv1.PodDisruptionBudget:
		m.budgets = append(m.budgets, o)
	default:
		return fmt.Errorf("a %T, which deploycheck does not check", obj)
	}
	return nil
}

// workload is a pod template and what selects it.
type workload struct {
	name     string
	selector labels.Selector
	template *corev1.PodTemplateSpec
}

func (m *manifests) workloads() []workload {
	var out []workload
	for _, d := range m.deployments {
		out = append(out, workload{"Deployment " + d.Name, mustSelector(d.Spec.Selector.MatchLabels), &d.Spec.Template})
	}
	for _, s := range m.statefulSets {
		out = append(out, workload{"StatefulSet " + s.Name, mustSelector(s.Spec.Selector.MatchLabels), &s.Spec.Template})
	}
	return out
}

func mustSelector(l map[string]string) labels.Selector {
	if len(l) == 0 {
		return labels.Nothing()
	}
	return labels.SelectorFromSet(l)
}

// selected is the workloads whose pods a label set selects.
func (m *manifests) selected(sel map[string]string) []workload {
	var out []workload
	for _, w := range m.workloads() {
		if len(sel) > 0 && labels.SelectorFromSet(sel).Matches(labels.Set(w.template.Labels)) {
			out = append(out, w)
		}
	}
	return out
}

// hasPort says whether a container of w names the port (or has its number).
func (w workload) hasPort(name string, number int32) bool {
	for _, c := range w.template.Spec.Containers {
		for _, p := range c.Ports {
			if name != "" && p.Name == name || name == "" && p.ContainerPort == number {
				return true
			}
		}
	}
	return false
}

func (m *manifests) service(name string) *corev1.Service {
	for _, s := range m.services {
		if s.Name == name {
			return s
		}
	}
	return nil
}

func (m *manifests) hasConfigMap(name string) bool {
	return slices.ContainsFunc(m.configMaps, func(c *corev1.ConfigMap) bool { return c.Name == name })
}
