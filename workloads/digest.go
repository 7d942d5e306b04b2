package workloads

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Digest identifies the workload by its resolved content: "sha256:" and
// the hex SHA-256 of the JSON of its name, description, defaults and
// cases as resolved (messages, request files' content, max_tokens,
// extra_body, checks, tags), so the same workload reached by two paths
// has one digest, and an edited file at the same path has another.
// Path and Warnings are not part of it. The digest is stable for one
// benchserve version; results payloads record it (workload.digest) and
// benchserve merge compares it.
func (w *Workload) Digest() string {
	type digestCase struct {
		Case
		RequestPath string          `json:"-"`
		Index       int             `json:"-"`
		ExtraBody   json.RawMessage `json:"ExtraBody"`
	}
	cases := make([]digestCase, len(w.Cases))
	for i, c := range w.Cases {
		eb := c.ExtraBodyJSON
		if eb == nil && c.ExtraBody != nil {
			eb, _ = json.Marshal(c.ExtraBody)
		}
		cases[i] = digestCase{Case: c, ExtraBody: eb}
		cases[i].Case.ExtraBodyJSON = nil
		cases[i].Case.ExtraBody = nil
	}
	data, err := json.Marshal(struct {
		Name, Description string
		Defaults          json.RawMessage
		Cases             []digestCase
	}{w.Name, w.Description, w.DefaultsJSON, cases})
	if err != nil {
		// Every field is plain data; a value that does not marshal
		// still gets a digest, of what did.
		data = []byte(err.Error())
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
