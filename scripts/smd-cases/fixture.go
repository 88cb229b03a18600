// Package fixture is a stand-in, written for smp, for structured-merge-diff's
// internal test fixture: the same exported API, so that the upstream
// `merge` tests compile against it unchanged. Each test case still runs
// against the real merge.Updater, and the case (its schemas, operations,
// the reference's outcome of every operation, and the case's own
// expectations) is printed to stdout as one line, `SMDCASE <json>`, which
// record.sh turns into smp's fixture lines.
package fixture

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	yaml "go.yaml.in/yaml/v2"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// Parser gives the type of a version.
type Parser interface {
	Type(string) typed.ParseableType
}

// SameVersionParser gives one type for every version.
type SameVersionParser struct {
	T typed.ParseableType
}

func (p SameVersionParser) Type(_ string) typed.ParseableType { return p.T }

// DeducedParser deduces the type from the value, for every version.
var DeducedParser = SameVersionParser{T: typed.DeducedParseableType}

// FixTabsOrDie removes the tabs that indent the first line from every line.
func FixTabsOrDie(in typed.YAMLObject) typed.YAMLObject {
	lines := strings.Split(string(in), "\n")
	if len(lines) > 1 && lines[0] == "" {
		lines = lines[1:]
	}
	prefix := lines[0][:len(lines[0])-len(strings.TrimLeft(lines[0], "\t"))]
	for i, l := range lines {
		if i == len(lines)-1 && strings.TrimSpace(l) == "" {
			lines[i] = ""
			break
		}
		if !strings.HasPrefix(l, prefix) {
			panic(fmt.Errorf("line %d lacks the indentation of the first: %q", i, l))
		}
		lines[i] = l[len(prefix):]
	}
	return typed.YAMLObject(strings.Join(lines, "\n"))
}

// --- what gets recorded ---------------------------------------------------

type conflictRec struct {
	Manager string `json:"manager"`
	Path    string `json:"path"`
}

type managerRec struct {
	APIVersion string          `json:"apiVersion"`
	Applied    bool            `json:"applied"`
	Fields     json.RawMessage `json:"fields"`
}

type outcomeRec struct {
	Error     string                `json:"error,omitempty"`
	Conflicts []conflictRec         `json:"conflicts,omitempty"`
	Live      interface{}           `json:"live"`
	Managers  map[string]managerRec `json:"managers"`
}

type opRec struct {
	Op         string        `json:"op"`
	Manager    string        `json:"manager,omitempty"`
	APIVersion string        `json:"apiVersion,omitempty"`
	Object     interface{}   `json:"object,omitempty"`
	Schema     int           `json:"schema"`
	Expected   []conflictRec `json:"expectedConflicts,omitempty"`
	Checks     bool          `json:"checksConflicts,omitempty"`
	Outcome    outcomeRec    `json:"outcome"`
}

type caseRec struct {
	Schemas       []interface{}         `json:"schemas"`
	Ops           []opRec               `json:"ops"`
	Converter     string                `json:"converter"`
	IgnoreFilter  bool                  `json:"ignoreFilter,omitempty"`
	IgnoredFields map[string]json.RawMessage `json:"ignoredFields,omitempty"`
	Object        interface{}           `json:"object,omitempty"`
	APIVersion    string                `json:"apiVersion,omitempty"`
	Managed       map[string]managerRec `json:"managed,omitempty"`
	Error         string                `json:"error,omitempty"`
	schemaText    []string
}

// jsonable turns yaml.v2's maps into maps with string keys.
func jsonable(v interface{}) interface{} {
	switch m := v.(type) {
	case map[interface{}]interface{}:
		out := map[string]interface{}{}
		for k, x := range m {
			out[fmt.Sprint(k)] = jsonable(x)
		}
		return out
	case map[string]interface{}:
		out := map[string]interface{}{}
		for k, x := range m {
			out[k] = jsonable(x)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(m))
		for i, x := range m {
			out[i] = jsonable(x)
		}
		return out
	}
	return v
}

func (c *caseRec) schemaIndex(pt typed.ParseableType) int {
	doc := map[string]interface{}{}
	if pt.Schema != nil {
		b, err := yaml.Marshal(pt.Schema)
		if err != nil {
			panic(err)
		}
		var s interface{}
		if err := yaml.Unmarshal(b, &s); err != nil {
			panic(err)
		}
		doc["schema"] = jsonable(s)
	}
	b, err := yaml.Marshal(pt.TypeRef)
	if err != nil {
		panic(err)
	}
	var t interface{}
	if err := yaml.Unmarshal(b, &t); err != nil {
		panic(err)
	}
	doc["type"] = jsonable(t)
	text, _ := json.Marshal(doc)
	for i, s := range c.schemaText {
		if s == string(text) {
			return i
		}
	}
	c.schemaText = append(c.schemaText, string(text))
	c.Schemas = append(c.Schemas, doc)
	return len(c.Schemas) - 1
}

func yamlValue(obj typed.YAMLObject) interface{} {
	var v interface{}
	if err := yaml.Unmarshal([]byte(FixTabsOrDie(obj)), &v); err != nil {
		return map[string]interface{}{"__unparsed_yaml": string(obj)}
	}
	return jsonable(v)
}

func valueOf(tv *typed.TypedValue) interface{} {
	if tv == nil {
		return nil
	}
	return jsonable(tv.AsValue().Unstructured())
}

func managersOf(m fieldpath.ManagedFields) map[string]managerRec {
	out := map[string]managerRec{}
	for name, vs := range m {
		b, err := vs.Set().ToJSON()
		if err != nil {
			panic(err)
		}
		out[name] = managerRec{APIVersion: string(vs.APIVersion()), Applied: vs.Applied(), Fields: b}
	}
	return out
}

func conflictsOf(c merge.Conflicts) []conflictRec {
	out := []conflictRec{}
	for _, x := range c {
		out = append(out, conflictRec{Manager: x.Manager, Path: x.Path.String()})
	}
	return out
}

// --- the state and its operations -----------------------------------------

// State is the live object and its managers as a case runs.
type State struct {
	Live     *typed.TypedValue
	Parser   Parser
	Managers fieldpath.ManagedFields
	Updater  *merge.Updater
	rec      *caseRec
}

func (s *State) ensureLive(version fieldpath.APIVersion) error {
	if s.Live != nil {
		return nil
	}
	obj, err := s.Parser.Type(string(version)).FromUnstructured(nil)
	if err != nil {
		return fmt.Errorf("failed to create new empty object: %v", err)
	}
	s.Live = obj
	return nil
}

// record appends an operation and the state it left.
func (s *State) record(op opRec, version fieldpath.APIVersion, err error) {
	if s.rec == nil {
		return
	}
	op.Schema = s.rec.schemaIndex(s.Parser.Type(string(version)))
	op.Outcome = outcomeRec{Live: valueOf(s.Live), Managers: managersOf(s.Managers)}
	if err != nil {
		op.Outcome.Error = err.Error()
		if c, ok := err.(merge.Conflicts); ok {
			op.Outcome.Conflicts = conflictsOf(c)
		}
	}
	s.rec.Ops = append(s.rec.Ops, op)
}

func (s *State) UpdateObject(tv *typed.TypedValue, version fieldpath.APIVersion, manager string) error {
	if err := s.ensureLive(version); err != nil {
		return err
	}
	live, err := s.Updater.Converter.Convert(s.Live, version)
	if err != nil {
		return err
	}
	s.Live = live
	obj, managers, err := s.Updater.Update(s.Live, tv, version, s.Managers, manager)
	if err != nil {
		return err
	}
	s.Live, s.Managers = obj, managers
	return nil
}

func (s *State) Update(obj typed.YAMLObject, version fieldpath.APIVersion, manager string) error {
	tv, err := s.Parser.Type(string(version)).FromYAML(FixTabsOrDie(obj), typed.AllowDuplicates)
	if err == nil {
		err = s.UpdateObject(tv, version, manager)
	}
	s.record(opRec{Op: "update", Manager: manager, APIVersion: string(version), Object: yamlValue(obj)}, version, err)
	return err
}

func (s *State) ApplyObject(tv *typed.TypedValue, version fieldpath.APIVersion, manager string, force bool) error {
	if err := s.ensureLive(version); err != nil {
		return err
	}
	live, err := s.Updater.Converter.Convert(s.Live, version)
	if err != nil {
		return err
	}
	s.Live = live
	obj, managers, err := s.Updater.Apply(s.Live, tv, version, s.Managers, manager, force)
	if err != nil {
		return err
	}
	s.Managers = managers
	if obj != nil {
		s.Live = obj
	}
	return nil
}

func (s *State) Apply(obj typed.YAMLObject, version fieldpath.APIVersion, manager string, force bool) error {
	tv, err := s.Parser.Type(string(version)).FromYAML(FixTabsOrDie(obj))
	if err == nil {
		err = s.ApplyObject(tv, version, manager, force)
	}
	op := "apply"
	if force {
		op = "force-apply"
	}
	s.record(opRec{Op: op, Manager: manager, APIVersion: string(version), Object: yamlValue(obj)}, version, err)
	return err
}

// CompareLive says how the live object differs from obj ("" when equal).
func (s *State) CompareLive(obj typed.YAMLObject, version fieldpath.APIVersion) (string, error) {
	if err := s.ensureLive(version); err != nil {
		return "", err
	}
	tv, err := s.Parser.Type(string(version)).FromYAML(FixTabsOrDie(obj), typed.AllowDuplicates)
	if err != nil {
		return "", err
	}
	live, err := s.Updater.Converter.Convert(s.Live, version)
	if err != nil {
		return "", err
	}
	want, _ := json.Marshal(valueOf(tv))
	got, _ := json.Marshal(valueOf(live))
	if string(want) == string(got) {
		return "", nil
	}
	return fmt.Sprintf("want %s\ngot  %s", want, got), nil
}

type identityConverter struct{}

func (identityConverter) Convert(v *typed.TypedValue, version fieldpath.APIVersion) (*typed.TypedValue, error) {
	if version == "" {
		return nil, fmt.Errorf("cannot convert to invalid version: %q", version)
	}
	return v, nil
}

func (identityConverter) IsMissingVersionError(error) bool { return false }

// Operation is a step of a case.
type Operation interface {
	run(*State) error
	preprocess(Parser) (Operation, error)
}

func sameConflicts(a, b merge.Conflicts) bool {
	has := func(cs merge.Conflicts, c merge.Conflict) bool {
		for i := range cs {
			if c.Equals(cs[i]) {
				return true
			}
		}
		return false
	}
	for _, c := range a {
		if !has(b, c) {
			return false
		}
	}
	for _, c := range b {
		if !has(a, c) {
			return false
		}
	}
	return true
}

// Apply is an apply that may conflict; Conflicts, when not nil, are the
// conflicts it must give.
type Apply struct {
	Manager    string
	APIVersion fieldpath.APIVersion
	Object     typed.YAMLObject
	Conflicts  merge.Conflicts
}

func (a Apply) run(s *State) error {
	tv, err := s.Parser.Type(string(a.APIVersion)).FromYAML(FixTabsOrDie(a.Object))
	if err == nil {
		err = s.ApplyObject(tv, a.APIVersion, a.Manager, false)
	}
	s.record(opRec{Op: "apply", Manager: a.Manager, APIVersion: string(a.APIVersion), Object: yamlValue(a.Object),
		Expected: expected(a.Conflicts), Checks: a.Conflicts != nil}, a.APIVersion, err)
	return checkConflicts(a.Conflicts, err)
}

func (a Apply) preprocess(p Parser) (Operation, error) {
	tv, err := p.Type(string(a.APIVersion)).FromYAML(FixTabsOrDie(a.Object))
	if err != nil {
		return nil, err
	}
	return ApplyObject{Manager: a.Manager, APIVersion: a.APIVersion, Object: tv, Conflicts: a.Conflicts}, nil
}

func expected(c merge.Conflicts) []conflictRec {
	if c == nil {
		return nil
	}
	return conflictsOf(c)
}

func checkConflicts(want merge.Conflicts, err error) error {
	got, isConflict := err.(merge.Conflicts)
	if err != nil && (!isConflict || want == nil) {
		return err
	}
	if want != nil && !sameConflicts(want, got) {
		return fmt.Errorf("expected conflicts %v, got %v", want, got)
	}
	return nil
}

// ApplyObject is Apply with a typed value.
type ApplyObject struct {
	Manager    string
	APIVersion fieldpath.APIVersion
	Object     *typed.TypedValue
	Conflicts  merge.Conflicts
}

func (a ApplyObject) run(s *State) error {
	err := s.ApplyObject(a.Object, a.APIVersion, a.Manager, false)
	s.record(opRec{Op: "apply", Manager: a.Manager, APIVersion: string(a.APIVersion), Object: valueOf(a.Object),
		Expected: expected(a.Conflicts), Checks: a.Conflicts != nil}, a.APIVersion, err)
	return checkConflicts(a.Conflicts, err)
}

func (a ApplyObject) preprocess(Parser) (Operation, error) { return a, nil }

// ForceApply is an apply that takes over conflicting fields.
type ForceApply struct {
	Manager    string
	APIVersion fieldpath.APIVersion
	Object     typed.YAMLObject
}

func (f ForceApply) run(s *State) error { return s.Apply(f.Object, f.APIVersion, f.Manager, true) }

func (f ForceApply) preprocess(p Parser) (Operation, error) {
	tv, err := p.Type(string(f.APIVersion)).FromYAML(FixTabsOrDie(f.Object))
	if err != nil {
		return nil, err
	}
	return ForceApplyObject{Manager: f.Manager, APIVersion: f.APIVersion, Object: tv}, nil
}

// ForceApplyObject is ForceApply with a typed value.
type ForceApplyObject struct {
	Manager    string
	APIVersion fieldpath.APIVersion
	Object     *typed.TypedValue
}

func (f ForceApplyObject) run(s *State) error {
	err := s.ApplyObject(f.Object, f.APIVersion, f.Manager, true)
	s.record(opRec{Op: "force-apply", Manager: f.Manager, APIVersion: string(f.APIVersion), Object: valueOf(f.Object)}, f.APIVersion, err)
	return err
}

func (f ForceApplyObject) preprocess(Parser) (Operation, error) { return f, nil }

// ExtractApply applies, forced, what the manager owns merged with Object.
type ExtractApply struct {
	Manager    string
	APIVersion fieldpath.APIVersion
	Object     typed.YAMLObject
}

func (e ExtractApply) run(s *State) error {
	tv, err := s.Parser.Type(string(e.APIVersion)).FromYAML(FixTabsOrDie(e.Object))
	if err != nil {
		s.record(opRec{Op: "extract-apply", Manager: e.Manager, APIVersion: string(e.APIVersion), Object: yamlValue(e.Object)}, e.APIVersion, err)
		return err
	}
	return ExtractApplyObject{Manager: e.Manager, APIVersion: e.APIVersion, Object: tv}.run(s)
}

func (e ExtractApply) preprocess(p Parser) (Operation, error) {
	tv, err := p.Type(string(e.APIVersion)).FromYAML(FixTabsOrDie(e.Object))
	if err != nil {
		return nil, err
	}
	return ExtractApplyObject{Manager: e.Manager, APIVersion: e.APIVersion, Object: tv}, nil
}

// ExtractApplyObject is ExtractApply with a typed value.
type ExtractApplyObject struct {
	Manager    string
	APIVersion fieldpath.APIVersion
	Object     *typed.TypedValue
}

func (e ExtractApplyObject) run(s *State) error {
	err := e.extractApply(s)
	s.record(opRec{Op: "extract-apply", Manager: e.Manager, APIVersion: string(e.APIVersion), Object: valueOf(e.Object)}, e.APIVersion, err)
	return err
}

func (e ExtractApplyObject) extractApply(s *State) error {
	if s.Live == nil {
		return s.ApplyObject(e.Object, e.APIVersion, e.Manager, true)
	}
	current, err := s.Updater.Converter.Convert(s.Live, e.APIVersion)
	if err != nil {
		return err
	}
	set := fieldpath.NewSet()
	if m := s.Managers[e.Manager]; m != nil {
		if m.APIVersion() != e.APIVersion {
			return fmt.Errorf("manager %s owns its fields in %s, not %s", e.Manager, m.APIVersion(), e.APIVersion)
		}
		set = m.Set().Leaves()
	}
	obj, err := current.ExtractItems(set).Merge(e.Object)
	if err != nil {
		return err
	}
	return s.ApplyObject(obj, e.APIVersion, e.Manager, true)
}

func (e ExtractApplyObject) preprocess(Parser) (Operation, error) { return e, nil }

// Update is a non-apply write.
type Update struct {
	Manager    string
	APIVersion fieldpath.APIVersion
	Object     typed.YAMLObject
}

func (u Update) run(s *State) error { return s.Update(u.Object, u.APIVersion, u.Manager) }

func (u Update) preprocess(p Parser) (Operation, error) {
	tv, err := p.Type(string(u.APIVersion)).FromYAML(FixTabsOrDie(u.Object), typed.AllowDuplicates)
	if err != nil {
		return nil, err
	}
	return UpdateObject{Manager: u.Manager, APIVersion: u.APIVersion, Object: tv}, nil
}

// UpdateObject is Update with a typed value.
type UpdateObject struct {
	Manager    string
	APIVersion fieldpath.APIVersion
	Object     *typed.TypedValue
}

func (u UpdateObject) run(s *State) error {
	err := s.UpdateObject(u.Object, u.APIVersion, u.Manager)
	s.record(opRec{Op: "update", Manager: u.Manager, APIVersion: string(u.APIVersion), Object: valueOf(u.Object)}, u.APIVersion, err)
	return err
}

func (u UpdateObject) preprocess(Parser) (Operation, error) { return u, nil }

// ChangeParser swaps the schema (types by version name) under the live object.
type ChangeParser struct {
	Parser *typed.Parser
}

func (c ChangeParser) run(s *State) error {
	s.Parser = c.Parser
	retyped, err := typed.AsTyped(s.Live.AsValue(), &c.Parser.Schema, s.Live.TypeRef())
	if err == nil {
		s.Live = retyped
	}
	version := fieldpath.APIVersion("")
	if tr := s.Live.TypeRef().NamedType; tr != nil {
		version = fieldpath.APIVersion(*tr)
	}
	s.record(opRec{Op: "change-schema", APIVersion: string(version)}, version, err)
	return err
}

func (c ChangeParser) preprocess(Parser) (Operation, error) { return c, nil }

// TestCase is a list of operations and what they must leave.
type TestCase struct {
	Ops               []Operation
	Object            typed.YAMLObject
	APIVersion        fieldpath.APIVersion
	Managed           fieldpath.ManagedFields
	ReturnInputOnNoop bool
	IgnoreFilter      map[fieldpath.APIVersion]fieldpath.Filter
	IgnoredFields     map[fieldpath.APIVersion]*fieldpath.Set
}

func (tc TestCase) Test(parser Parser) error {
	return tc.TestWithConverter(parser, identityConverter{})
}

func (tc TestCase) Bench(parser Parser) error {
	return tc.BenchWithConverter(parser, identityConverter{})
}

func (tc TestCase) PreprocessOperations(parser Parser) error {
	for i := range tc.Ops {
		op, err := tc.Ops[i].preprocess(parser)
		if err != nil {
			return err
		}
		tc.Ops[i] = op
	}
	return nil
}

func (tc TestCase) updater(converter merge.Converter) *merge.Updater {
	b := merge.UpdaterBuilder{Converter: converter, IgnoreFilter: tc.IgnoreFilter,
		IgnoredFields: tc.IgnoredFields, ReturnInputOnNoop: tc.ReturnInputOnNoop}
	return b.BuildUpdater()
}

func (tc TestCase) BenchWithConverter(parser Parser, converter merge.Converter) error {
	s := State{Updater: tc.updater(converter), Parser: parser}
	for i, op := range tc.Ops {
		if err := op.run(&s); err != nil {
			return fmt.Errorf("failed operation %d: %v", i, err)
		}
	}
	return nil
}

func (tc TestCase) TestWithConverter(parser Parser, converter merge.Converter) error {
	rec := &caseRec{Converter: fmt.Sprintf("%T", converter), IgnoreFilter: tc.IgnoreFilter != nil}
	if tc.IgnoredFields != nil {
		rec.IgnoredFields = map[string]json.RawMessage{}
		for v, set := range tc.IgnoredFields {
			b, err := set.ToJSON()
			if err != nil {
				panic(err)
			}
			rec.IgnoredFields[string(v)] = b
		}
	}
	err := tc.run(parser, converter, rec)
	if err != nil {
		rec.Error = err.Error()
	}
	line, jerr := json.Marshal(rec)
	if jerr != nil {
		panic(jerr)
	}
	if os.Getenv("SMD_RECORD") != "" {
		fmt.Printf("SMDCASE %s\n", line)
	}
	return err
}

func (tc TestCase) run(parser Parser, converter merge.Converter, rec *caseRec) error {
	s := State{Updater: tc.updater(converter), Parser: parser, rec: rec}
	for i, op := range tc.Ops {
		if err := op.run(&s); err != nil {
			return fmt.Errorf("failed operation %d: %v", i, err)
		}
	}
	if tc.Object != "" {
		tv, err := s.Parser.Type(string(tc.APIVersion)).FromYAML(FixTabsOrDie(tc.Object), typed.AllowDuplicates)
		if err != nil {
			return err
		}
		rec.Object, rec.APIVersion = valueOf(tv), string(tc.APIVersion)
		diff, err := s.CompareLive(tc.Object, tc.APIVersion)
		if err != nil {
			return err
		}
		if diff != "" {
			return fmt.Errorf("live object differs:\n%s", diff)
		}
	}
	if tc.Managed != nil {
		rec.Managed = managersOf(tc.Managed)
		if d := s.Managers.Difference(tc.Managed); len(d) != 0 {
			return fmt.Errorf("managers differ: %v", d)
		}
	}
	for m, vs := range s.Managers {
		if vs.Set().Empty() {
			return fmt.Errorf("manager %s has an empty set", m)
		}
	}
	return nil
}
