// Package testing is a stand-in, written for smp, for apimachinery's
// managedfields/internal/testing: the same exported API, the same field
// manager chain around the real structured-merge manager, and every
// Apply, Update and Reset printed to stdout as one line, `MFOP <json>`,
// with the reference's outcome, which record.sh turns into smp's fixtures.
// Each operation starts on a fresh second of the wall clock, so that the
// times it stamps tell it apart from every earlier operation.
package testing

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/managedfields/internal"
)

// FakeObjectCreater creates empty unstructured objects of a kind.
type FakeObjectCreater struct{}

func (f *FakeObjectCreater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := unstructured.Unstructured{Object: map[string]interface{}{}}
	u.SetAPIVersion(gvk.GroupVersion().String())
	u.SetKind(gvk.Kind)
	return &u, nil
}

// FakeObjectConvertor converts nothing.
type FakeObjectConvertor struct{}

func (c *FakeObjectConvertor) Convert(in, out, context interface{}) error { return nil }

func (c *FakeObjectConvertor) ConvertToVersion(in runtime.Object, _ runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}

func (c *FakeObjectConvertor) ConvertFieldLabel(_ schema.GroupVersionKind, _, _ string) (string, string, error) {
	return "", "", errors.New("not implemented")
}

// FakeObjectDefaulter defaults nothing.
type FakeObjectDefaulter struct{}

func (d *FakeObjectDefaulter) Default(in runtime.Object) {}

var managers int64

// TestFieldManagerImpl is a field manager over one live object.
type TestFieldManagerImpl struct {
	fieldManager *internal.FieldManager
	apiVersion   string
	emptyObj     runtime.Object
	liveObj      runtime.Object
	id           int64
	gvk          schema.GroupVersionKind
	subresource  string
	chained      bool
}

func (f *TestFieldManagerImpl) APIVersion() string { return f.apiVersion }

func (f *TestFieldManagerImpl) Reset() {
	f.liveObj = f.emptyObj.DeepCopyObject()
	f.record(map[string]interface{}{"op": "reset"}, nil)
}

func (f *TestFieldManagerImpl) Live() runtime.Object { return f.liveObj.DeepCopyObject() }

func freshSecond() int64 {
	now := time.Now()
	next := now.Truncate(time.Second).Add(time.Second + 5*time.Millisecond)
	time.Sleep(next.Sub(now))
	return next.Unix()
}

// asJSON is the object's JSON now: the field manager changes the objects
// it is given in place.
func asJSON(obj runtime.Object) json.RawMessage {
	if obj == nil {
		return json.RawMessage("null")
	}
	var m interface{}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		m = u.Object
	} else {
		var err error
		if m, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
			m = map[string]interface{}{"__unconvertible": err.Error()}
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func (f *TestFieldManagerImpl) record(op map[string]interface{}, err error) {
	if os.Getenv("SMD_RECORD") == "" {
		return
	}
	op["fm"] = f.id
	op["apiVersion"] = f.gvk.GroupVersion().String()
	op["kind"] = f.gvk.Kind
	op["subresource"] = f.subresource
	op["chained"] = f.chained
	op["live"] = asJSON(f.liveObj)
	if err != nil {
		op["error"] = err.Error()
		var status apierrors.APIStatus
		if errors.As(err, &status) && status.Status().Details != nil {
			causes := []map[string]string{}
			for _, c := range status.Status().Details.Causes {
				causes = append(causes, map[string]string{"type": string(c.Type), "message": c.Message, "field": c.Field})
			}
			op["causes"] = causes
		}
	}
	b, jerr := json.Marshal(op)
	if jerr != nil {
		panic(jerr)
	}
	fmt.Printf("MFOP %s\n", b)
}

func (f *TestFieldManagerImpl) Apply(obj runtime.Object, manager string, force bool) error {
	op := map[string]interface{}{"op": "apply", "manager": manager, "force": force, "object": asJSON(obj)}
	if os.Getenv("SMD_RECORD") != "" {
		op["second"] = freshSecond()
	}
	out, err := f.fieldManager.Apply(f.liveObj, obj, manager, force)
	if err == nil {
		f.liveObj = out
	}
	f.record(op, err)
	return err
}

func (f *TestFieldManagerImpl) Update(obj runtime.Object, manager string) error {
	op := map[string]interface{}{"op": "update", "manager": manager, "object": asJSON(obj)}
	if os.Getenv("SMD_RECORD") != "" {
		op["second"] = freshSecond()
	}
	out, err := f.fieldManager.Update(f.liveObj, obj, manager)
	if err == nil {
		f.liveObj = out
	}
	f.record(op, err)
	return err
}

func (f *TestFieldManagerImpl) UpdateNoErrors(obj runtime.Object, manager string) {
	op := map[string]interface{}{"op": "update-no-errors", "manager": manager, "object": asJSON(obj)}
	if os.Getenv("SMD_RECORD") != "" {
		op["second"] = freshSecond()
	}
	f.liveObj = f.fieldManager.UpdateNoErrors(f.liveObj, obj, manager)
	f.record(op, nil)
}

func (f *TestFieldManagerImpl) ManagedFields() []metav1.ManagedFieldsEntry {
	accessor, err := meta.Accessor(f.liveObj)
	if err != nil {
		panic(fmt.Errorf("couldn't get accessor: %v", err))
	}
	return accessor.GetManagedFields()
}

// NewTestFieldManagerImpl builds the server's chain without its cap of
// update managers (tested apart), as the upstream helper does; `chain`
// wraps it further.
func NewTestFieldManagerImpl(typeConverter managedfields.TypeConverter, gvk schema.GroupVersionKind, subresource string, chain func(internal.Manager) internal.Manager) *TestFieldManagerImpl {
	f, err := internal.NewStructuredMergeManager(typeConverter, &FakeObjectConvertor{}, &FakeObjectDefaulter{},
		gvk.GroupVersion(), gvk.GroupVersion(), nil)
	if err != nil {
		panic(err)
	}
	live := &unstructured.Unstructured{}
	live.SetKind(gvk.Kind)
	live.SetAPIVersion(gvk.GroupVersion().String())
	f = internal.NewStripMetaManager(f)
	f = internal.NewManagedFieldsUpdater(f)
	f = internal.NewBuildManagerInfoManager(f, gvk.GroupVersion(), subresource)
	f = internal.NewProbabilisticSkipNonAppliedManager(f, &FakeObjectCreater{}, internal.DefaultTrackOnCreateProbability)
	f = internal.NewLastAppliedManager(f, typeConverter, &FakeObjectConvertor{}, gvk.GroupVersion())
	f = internal.NewLastAppliedUpdater(f)
	f = internal.NewVersionCheckManager(f, gvk)
	if chain != nil {
		f = chain(f)
	}
	return &TestFieldManagerImpl{
		fieldManager: internal.NewFieldManager(f, subresource),
		apiVersion:   gvk.GroupVersion().String(),
		emptyObj:     live,
		liveObj:      live.DeepCopyObject(),
		id:           atomic.AddInt64(&managers, 1),
		gvk:          gvk,
		subresource:  subresource,
		chained:      chain != nil,
	}
}
