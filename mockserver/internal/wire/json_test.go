package wire

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeEncodeKeepsOrderAndNumbers(t *testing.T) {
	for _, in := range []string{
		`{"z":1,"a":{"y":[1,2.50,{"b":null,"a":true}],"x":"<&>"},"m":-0.0}`,
		`[]`, `{}`, `"å"`, `12345678901234567890`,
	} {
		v, err := Decode([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, in+"\n", string(Encode(v)), "written back as it came")
	}
	_, err := Decode([]byte(`{"a":1} {"b":2}`))
	assert.Error(t, err, "data after the value")
}

func TestReverseMembers(t *testing.T) {
	v, err := Decode([]byte(`{"a":1,"b":{"c":2,"d":3},"e":[{"f":4,"g":5}]}`))
	require.NoError(t, err)
	assert.Equal(t, `{"e":[{"g":5,"f":4}],"b":{"d":3,"c":2},"a":1}`+"\n", string(Encode(ReverseMembers(v))))
}

// FuzzDecodeEncode: whatever JSON comes in, what goes out is the same JSON
// value.
func FuzzDecodeEncode(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x",null,true,{"b":-1.5e3}]}`, `[]`, `"\u00e5\ud83d\ude00"`, `{"":{"":""}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		v, err := Decode(in)
		require.NoError(t, err)
		var want, got any
		require.NoError(t, json.Unmarshal(in, &want))
		require.NoError(t, json.Unmarshal(Encode(v), &got), "%s", Encode(v))
		assert.Equal(t, want, got)
	})
}
