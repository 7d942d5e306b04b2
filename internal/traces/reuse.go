package traces

import "fmt"

// DefaultBlockSize is the tokens per hash id of a Mooncake trace (its
// published traces use 512).
const DefaultBlockSize = 512

// MaxHashID bounds a hash id Reuse tracks: one bit per id up to it (32
// MiB at most), so the memory of a replay does not grow with its lines.
// Mooncake's ids are consecutive from 0 in first-seen order, far below it.
const MaxHashID = 1<<28 - 1

// Reuse computes the prefix reuse a trace was built to have: the prompt
// tokens of each request a prefix cache holding every earlier request
// could serve. A request's cached tokens are its leading whole blocks
// whose ids an earlier request sent whole; the first new id ends the run,
// and a partial last block (the input length cut it) is never counted,
// as caches reuse whole blocks. Requests must be given in trace order.
type Reuse struct {
	// BlockSize is the tokens per hash id; 0 means DefaultBlockSize.
	BlockSize int
	seen      []uint64 // bitset of the ids sent whole
}

// Add records r's whole blocks as sent and returns the tokens of r an
// earlier request shares (see Reuse), or an error naming the field for an
// id beyond MaxHashID.
func (u *Reuse) Add(file string, r Request) (int, error) {
	bs := u.BlockSize
	if bs <= 0 {
		bs = DefaultBlockSize
	}
	cached, prefix, left := 0, true, r.InputTokens
	for i, id := range r.HashIDs {
		if left < bs {
			break
		}
		if id > MaxHashID {
			return 0, &Error{File: file, Line: r.Line, Field: fmt.Sprintf("hash_ids[%d]", i),
				Msg: fmt.Sprintf("%d: want an id <= %d (ids are block numbers)", id, MaxHashID)}
		}
		w, bit := id/64, uint64(1)<<(id%64)
		for int64(len(u.seen)) <= w {
			u.seen = append(u.seen, 0)
		}
		if prefix && u.seen[w]&bit != 0 {
			cached += bs
		} else {
			prefix = false
		}
		u.seen[w] |= bit
		left -= bs
	}
	return cached, nil
}
