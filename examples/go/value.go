package main

// JSON values as this port holds them, decoded with encoding/json's Decoder.Token and UseNumber:
//
//	null -> nil, true/false -> bool, a number -> json.Number (its literal, exactly as written),
//	a string -> string, an array -> []any, an object -> *Object (members in input order).
//
// A map[string]any would lose the member order, which the wire line keeps (spec/wire.md §4.2,
// §6.4); a float64 would lose the spelling of integer literals beyond 2^53-1 (wire.md §7) and
// echo 30.0 as 30 or 1e400 as an error.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Object is a JSON object whose members keep their input order.
type Object struct {
	keys   []string
	values map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{values: map[string]any{}} }

// Keys returns the member names in order.
func (o *Object) Keys() []string { return o.keys }

// Len is the number of members.
func (o *Object) Len() int { return len(o.keys) }

// Get returns the member's value and whether the member exists.
func (o *Object) Get(name string) (any, bool) {
	value, ok := o.values[name]
	return value, ok
}

// Set assigns a member. A new member goes last; an existing one keeps its position and takes the
// new value, as assignment to a JavaScript object (and object spread) does.
func (o *Object) Set(name string, value any) {
	if _, ok := o.values[name]; !ok {
		o.keys = append(o.keys, name)
	}
	o.values[name] = value
}

// decodeLine decodes one request line into the values above. It refuses a line that holds
// anything after its one JSON value.
func decodeLine(line []byte) (any, error) {
	decoder := json.NewDecoder(bytes.NewReader(line))
	decoder.UseNumber() // numbers stay json.Number: their literal, never a rounded float64
	value, err := decodeValue(decoder)
	if err != nil {
		return nil, err
	}
	if _, err := decoder.Token(); err != io.EOF {
		return nil, errors.New("the line holds more than one JSON value")
	}
	return value, nil
}

func decodeValue(decoder *json.Decoder) (any, error) {
	token, err := decoder.Token()
	if err != nil {
		return nil, err
	}
	delim, ok := token.(json.Delim)
	if !ok {
		return token, nil // nil, bool, json.Number or string
	}
	switch delim {
	case '[':
		list := []any{}
		for decoder.More() {
			item, err := decodeValue(decoder)
			if err != nil {
				return nil, err
			}
			list = append(list, item)
		}
		_, err := decoder.Token() // ']'
		return list, err
	case '{':
		object := NewObject()
		for decoder.More() {
			key, err := decoder.Token()
			if err != nil {
				return nil, err
			}
			name, ok := key.(string)
			if !ok {
				return nil, fmt.Errorf("an object member name is %v, not a string", key)
			}
			item, err := decodeValue(decoder)
			if err != nil {
				return nil, err
			}
			object.Set(name, item) // a repeated name: first position, last value (wire.md §6.1)
		}
		_, err := decoder.Token() // '}'
		return object, err
	}
	return nil, fmt.Errorf("unexpected %v", delim)
}

// isObject, asList and friends read a value as one JSON type.
func asObject(value any) (*Object, bool) {
	object, ok := value.(*Object)
	return object, ok
}

func asList(value any) ([]any, bool) {
	list, ok := value.([]any)
	return list, ok
}

func asString(value any) (string, bool) {
	text, ok := value.(string)
	return text, ok
}
