package resultio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/benchserve/benchserve/internal/py"
	"github.com/benchserve/benchserve/results"
)

// jsonOpts selects the json.dumps flavour pyJSON reproduces.
type jsonOpts struct {
	// indent 2 like json.dumps(indent=2); 0 means single-line with
	// Python's default separators ", " and ": ".
	indent bool
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	jsonNumberType    = reflect.TypeFor[json.Number]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	statsPtrType      = reflect.TypeFor[*results.Stats]()
	sloResultType     = reflect.TypeFor[results.SLOResult]()
	// intishFields are float fields whose reference value is a Python int
	// (policy_timeout_ms: Optional[int]); integral values print as ints.
	intishFields = map[reflect.Type]map[string]bool{
		reflect.TypeFor[results.Policy](): {"TimeoutMS": true},
	}
	ownPkgPath = reflect.TypeFor[results.Record]().PkgPath()
	// nullableFloatsType prints null when nil (itl_ms without gaps).
	nullableFloatsType = reflect.TypeFor[results.NullableFloats]()
)

// pyJSON encodes v the way the reference's json.dumps does (ensure_ascii,
// insertion order for structs = field order, sorted keys for Go maps), with
// these documented departures forced by Go:
//   - NaN and ±Inf become null (Python writes the invalid tokens NaN and
//     Infinity);
//   - typed float fields use Python's float repr ("3.0"); float64 values
//     held in an interface (decoded JSON such as extra_body) that are
//     integral print as integers, since their Python source was an int;
//   - nil slices and maps print as [] and {} (the reference never has None
//     where it has a list or dict), except a nil NullableFloats (null);
//     nil pointers print null, except a nil *Stats, which prints {} like
//     _summary_or_empty;
//   - a results.SLOResult prints as its JSON shape (SLOResult.MarshalJSON),
//     its numbers in Python's repr like every other.
func pyJSON(v any, o jsonOpts) ([]byte, error) {
	e := &pyEncoder{}
	if err := e.encode(reflect.ValueOf(v), false); err != nil {
		return nil, err
	}
	if !o.indent {
		return e.buf.Bytes(), nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, e.buf.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("results: json: indent: %w", err)
	}
	return out.Bytes(), nil
}

type pyEncoder struct {
	buf bytes.Buffer
}

func (e *pyEncoder) sep(item bool) {
	// Compact output with Python separators; pyJSON with indent re-indents,
	// and json.Indent ignores the existing insignificant spaces.
	if item {
		e.buf.WriteString(", ")
	} else {
		e.buf.WriteString(": ")
	}
}

// encode writes v; intish prints integral floats as integers (values held
// in interfaces, and intishFields).
func (e *pyEncoder) encode(v reflect.Value, intish bool) error {
	if !v.IsValid() {
		e.buf.WriteString("null")
		return nil
	}
	t := v.Type()
	if t == statsPtrType && v.IsNil() {
		e.buf.WriteString("{}")
		return nil
	}
	if t == nullableFloatsType && v.IsNil() {
		e.buf.WriteString("null")
		return nil
	}
	if t == sloResultType {
		return e.encode(reflect.ValueOf(sloEntryOf(v.Interface().(results.SLOResult))), false)
	}
	if t == jsonNumberType {
		s := v.String()
		if s == "" {
			s = "0"
		}
		e.buf.WriteString(py.JSONNumber(s))
		return nil
	}
	if t == rawMessageType {
		if v.Len() == 0 {
			e.buf.WriteString("null")
			return nil
		}
		return e.encodeRaw(v.Bytes())
	}
	if t.PkgPath() != ownPkgPath && t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && t.Implements(jsonMarshalerType) {
		b, err := v.Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return fmt.Errorf("results: json: %s: %w", t, err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			return fmt.Errorf("results: json: %s: %w", t, err)
		}
		e.buf.Write(c.Bytes())
		return nil
	}
	switch t.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			e.buf.WriteString("null")
			return nil
		}
		return e.encode(v.Elem(), intish || t.Kind() == reflect.Interface)
	case reflect.Bool:
		if v.Bool() {
			e.buf.WriteString("true")
		} else {
			e.buf.WriteString("false")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.buf.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		switch {
		case math.IsNaN(f) || math.IsInf(f, 0):
			e.buf.WriteString("null")
		case intish && f == math.Trunc(f) && math.Abs(f) < 1e16:
			e.buf.WriteString(strconv.FormatFloat(f, 'f', 0, 64))
		default:
			e.buf.WriteString(py.FloatRepr(f))
		}
	case reflect.String:
		py.WriteJSONString(&e.buf, v.String())
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			// []byte: encoding/json writes base64; keep that convention.
			b, _ := json.Marshal(v.Bytes())
			e.buf.Write(b)
			return nil
		}
		e.buf.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				e.sep(true)
			}
			if err := e.encode(v.Index(i), false); err != nil {
				return err
			}
		}
		e.buf.WriteByte(']')
	case reflect.Map:
		keys := make([]string, 0, v.Len())
		vals := make(map[string]reflect.Value, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key()
			var ks string
			switch k.Kind() {
			case reflect.String:
				ks = k.String()
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				ks = strconv.FormatInt(k.Int(), 10)
			case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
				ks = strconv.FormatUint(k.Uint(), 10)
			default:
				return fmt.Errorf("results: json: unsupported map key type %s", k.Type())
			}
			keys = append(keys, ks)
			vals[ks] = iter.Value()
		}
		slices.Sort(keys)
		e.buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				e.sep(true)
			}
			py.WriteJSONString(&e.buf, k)
			e.sep(false)
			if err := e.encode(vals[k], false); err != nil {
				return err
			}
		}
		e.buf.WriteByte('}')
	case reflect.Struct:
		e.buf.WriteByte('{')
		n := 0
		if err := e.structFields(v, &n); err != nil {
			return err
		}
		e.buf.WriteByte('}')
	default:
		return fmt.Errorf("results: json: unsupported type %s", t)
	}
	return nil
}

// structFields writes v's exported fields in declaration order, honouring
// json tags (name, "-", omitempty) and inlining untagged embedded structs.
func (e *pyEncoder) structFields(v reflect.Value, n *int) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv, ft = fv.Elem(), ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if err := e.structFields(fv, n); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(","+opts+",", ",omitempty,") && isEmptyValue(fv) {
			continue
		}
		if *n > 0 {
			e.sep(true)
		}
		*n++
		py.WriteJSONString(&e.buf, name)
		e.sep(false)
		// `ordered:"F"`: when field F (a json.RawMessage) is set, it is
		// written instead, keeping the key order the reference keeps.
		if of := f.Tag.Get("ordered"); of != "" {
			if raw := v.FieldByName(of); raw.IsValid() && raw.Type() == rawMessageType && raw.Len() > 0 {
				if err := e.encodeRaw(raw.Bytes()); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				continue
			}
		}
		if err := e.encode(fv, intishFields[t][f.Name]); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// isEmptyValue is encoding/json's omitempty test.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// pyDumps is json.dumps(v) with the reference's defaults (separators ", "
// and ": ", ensure_ascii, sorted map keys); see pyJSON for the departures.
func pyDumps(v any) (string, error) {
	b, err := pyJSON(v, jsonOpts{})
	return string(b), err
}

// encodeRaw re-encodes the JSON document raw as json.dumps would write the
// value json.loads makes of it: object keys in written order, strings
// ensure_ascii, integer literals as written, other numbers as Python floats.
func (e *pyEncoder) encodeRaw(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := e.rawValue(dec); err != nil {
		return fmt.Errorf("results: json: raw value: %w", err)
	}
	return nil
}

func (e *pyEncoder) rawValue(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch x := tok.(type) {
	case json.Delim:
		isObject := x == '{'
		if isObject {
			e.buf.WriteByte('{')
		} else {
			e.buf.WriteByte('[')
		}
		for i := 0; dec.More(); i++ {
			if i > 0 {
				e.sep(true)
			}
			if isObject {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				ks, _ := k.(string)
				py.WriteJSONString(&e.buf, ks)
				e.sep(false)
			}
			if err := e.rawValue(dec); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return err
		}
		if isObject {
			e.buf.WriteByte('}')
		} else {
			e.buf.WriteByte(']')
		}
	case string:
		py.WriteJSONString(&e.buf, x)
	case json.Number:
		e.buf.WriteString(py.JSONNumber(string(x)))
	case bool:
		if x {
			e.buf.WriteString("true")
		} else {
			e.buf.WriteString("false")
		}
	case nil:
		e.buf.WriteString("null")
	}
	return nil
}

// sloEntry is a results.SLOResult in the JSON shape its MarshalJSON
// writes, for the Python encoder to print field by field.
type sloEntry struct {
	Threshold  string            `json:"threshold"`
	Measured   float64           `json:"measured"`
	Pass       bool              `json:"pass"`
	CI         *results.Interval `json:"ci,omitempty"`
	Conclusive *bool             `json:"conclusive,omitempty"`
}

// sloEntryOf is o's JSON shape (a NaN measurement prints null).
func sloEntryOf(o results.SLOResult) sloEntry {
	e := sloEntry{Threshold: o.Expr, Measured: o.Measured, Pass: o.Pass, CI: o.CI}
	if e.Threshold == "" {
		e.Threshold = o.Name()
	}
	if o.CI != nil {
		c := o.Conclusive()
		e.Conclusive = &c
	}
	return e
}
