package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"io"
	"strings"
	"testing"
)

// A whole shard of an earlier layout is refused as another version's,
// with the remedy, not as a damaged file.
func TestShardOfAnotherLayout(t *testing.T) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(shardHeader{Format: shardFormatFamily + "3", Key: "k", Count: 1, Total: 1}); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b.Bytes())
	b.WriteString(shardTrailer)
	b.Write(sum[:])
	data := b.Bytes()
	f := ShardFile{Name: "old.gob", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
	_, err := checkShard(f)
	if err == nil || !strings.Contains(err.Error(), "another version of capsim") {
		t.Fatalf("error %v", err)
	}
}
