// Conformance of a postern release log with Go's golang.org/x/mod/sumdb
// (Debian's golang-golang-x-mod-dev), an implementation we did not write:
//
//	go run conformance.go VKEY LOGDIR [OLD-CHECKPOINT]
//	go run conformance.go proof VKEY FILE.tlog-proof
//
// note.Open checks the checkpoint's signature with the verifier key;
// tlog.TileHashReader reads our hash tiles (checking each against the
// signed tree hash, as Go's clients do); every entry's record hash must be
// the level-0 hash the tiles hold, every entry's inclusion proof must check,
// and with OLD-CHECKPOINT (an earlier signed checkpoint) the tree must be a
// consistency-proved extension of it. proof reads a c2sp.org/tlog-proof
// file (the format parsed here, independently of postern's parser): its
// checkpoint must open with note.Open and its inclusion proof must pass
// tlog.CheckRecord for the record hash of its extra data (the entry).
package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type tileDir string

func (d tileDir) Height() int { return 8 }

// Go names tiles tile/<H>/<L>/<N> and entry bundles tile/<H>/data/<N>; the
// C2SP layout postern writes has no height and calls the bundles "entries".
func (d tileDir) path(t tlog.Tile) string {
	p := strings.Replace(t.Path(), "tile/8/", "tile/", 1)
	return filepath.Join(string(d), strings.Replace(p, "tile/data/", "tile/entries/", 1))
}

func (d tileDir) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		data, err := os.ReadFile(d.path(t))
		if err != nil {
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}

func (d tileDir) SaveTiles([]tlog.Tile, [][]byte) {}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "conformance: "+format+"\n", args...)
	os.Exit(1)
}

func parseCheckpoint(text string) (origin string, tree tlog.Tree) {
	lines := strings.Split(text, "\n")
	if len(lines) < 4 {
		fail("checkpoint body has fewer than three lines")
	}
	n, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || strconv.FormatInt(n, 10) != lines[1] {
		fail("checkpoint size %q", lines[1])
	}
	raw, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(raw) != tlog.HashSize {
		fail("checkpoint root %q", lines[2])
	}
	tree.N = n
	copy(tree.Hash[:], raw)
	return lines[0], tree
}

func entries(dir tileDir, n int64) [][]byte {
	var out [][]byte
	for b := int64(0); b*256 < n; b++ {
		w := n - b*256
		if w > 256 {
			w = 256
		}
		t := tlog.Tile{H: 8, L: -1, N: b, W: int(w)}
		data, err := os.ReadFile(dir.path(t))
		if err != nil {
			fail("%v", err)
		}
		for len(data) > 0 {
			if len(data) < 2 || len(data) < 2+int(data[0])<<8|int(data[1]) {
				fail("bundle %d is malformed", b)
			}
			l := int(data[0])<<8 | int(data[1])
			out = append(out, data[2:2+l])
			data = data[2+l:]
		}
	}
	if int64(len(out)) != n {
		fail("the bundles hold %d entries, the checkpoint says %d", len(out), n)
	}
	return out
}

func checkProofFile(vkeyFile, proofFile string) {
	vkey, err := os.ReadFile(vkeyFile)
	if err != nil {
		fail("%v", err)
	}
	verifier, err := note.NewVerifier(strings.TrimSpace(string(vkey)))
	if err != nil {
		fail("verifier key: %v", err)
	}
	data, err := os.ReadFile(proofFile)
	if err != nil {
		fail("%v", err)
	}
	head, msg, ok := strings.Cut(string(data), "\n\n")
	if !ok {
		fail("tlog-proof: no empty line before the checkpoint")
	}
	lines := strings.Split(head, "\n")
	if len(lines) < 3 || lines[0] != "c2sp.org/tlog-proof@v1" || !strings.HasPrefix(lines[1], "extra ") ||
		!strings.HasPrefix(lines[2], "index ") {
		fail("tlog-proof: not c2sp.org/tlog-proof@v1 with extra and index lines")
	}
	extra, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(lines[1], "extra "))
	if err != nil {
		fail("tlog-proof extra: %v", err)
	}
	index, err := strconv.ParseInt(strings.TrimPrefix(lines[2], "index "), 10, 64)
	if err != nil {
		fail("tlog-proof index: %v", err)
	}
	var proof tlog.RecordProof
	for _, l := range lines[3:] {
		raw, err := base64.StdEncoding.DecodeString(l)
		if err != nil || len(raw) != tlog.HashSize {
			fail("tlog-proof: proof line %q", l)
		}
		var h tlog.Hash
		copy(h[:], raw)
		proof = append(proof, h)
	}
	n, err := note.Open([]byte(msg), note.VerifierList(verifier))
	if err != nil {
		fail("tlog-proof checkpoint: %v", err)
	}
	_, tree := parseCheckpoint(n.Text)
	if err := tlog.CheckRecord(proof, tree.N, tree.Hash, index, tlog.RecordHash(extra)); err != nil {
		fail("tlog-proof of entry %d: %v", index, err)
	}
	fmt.Printf("go sumdb: tlog-proof of entry %d under the checkpoint of %d entries verified\n", index, tree.N)
}

func main() {
	if len(os.Args) == 4 && os.Args[1] == "proof" {
		checkProofFile(os.Args[2], os.Args[3])
		return
	}
	if len(os.Args) != 3 && len(os.Args) != 4 {
		fail("usage: conformance VKEY LOGDIR [OLD-CHECKPOINT]")
	}
	vkey, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail("%v", err)
	}
	verifier, err := note.NewVerifier(strings.TrimSpace(string(vkey)))
	if err != nil {
		fail("verifier key: %v", err)
	}
	dir := tileDir(os.Args[2])
	msg, err := os.ReadFile(filepath.Join(string(dir), "checkpoint"))
	if err != nil {
		fail("%v", err)
	}
	n, err := note.Open(msg, note.VerifierList(verifier))
	if err != nil {
		fail("checkpoint: %v", err)
	}
	origin, tree := parseCheckpoint(n.Text)
	if origin != verifier.Name() {
		fail("origin %q is not the key's name %q", origin, verifier.Name())
	}
	hr := tlog.TileHashReader(tree, dir)
	root, err := tlog.TreeHash(tree.N, hr)
	if err != nil || root != tree.Hash {
		fail("tree hash from the tiles: %v (%v, want %v)", err, root, tree.Hash)
	}
	for i, e := range entries(dir, tree.N) {
		h, err := hr.ReadHashes([]int64{tlog.StoredHashIndex(0, int64(i))})
		if err != nil || h[0] != tlog.RecordHash(e) {
			fail("entry %d: its record hash is not the tiles' (%v)", i, err)
		}
		p, err := tlog.ProveRecord(tree.N, int64(i), hr)
		if err == nil {
			err = tlog.CheckRecord(p, tree.N, tree.Hash, int64(i), tlog.RecordHash(e))
		}
		if err != nil {
			fail("entry %d: inclusion proof: %v", i, err)
		}
	}
	if len(os.Args) == 4 {
		oldMsg, err := os.ReadFile(os.Args[3])
		if err != nil {
			fail("%v", err)
		}
		on, err := note.Open(oldMsg, note.VerifierList(verifier))
		if err != nil {
			fail("old checkpoint: %v", err)
		}
		_, old := parseCheckpoint(on.Text)
		p, err := tlog.ProveTree(tree.N, old.N, hr)
		if err == nil {
			err = tlog.CheckTree(p, tree.N, tree.Hash, old.N, old.Hash)
		}
		if err != nil {
			fail("not an extension of the old checkpoint of %d entries: %v", old.N, err)
		}
		fmt.Printf("go sumdb: consistency from %d to %d entries verified\n", old.N, tree.N)
	}
	fmt.Printf("go sumdb: checkpoint signature, %d entries, tiles and inclusion proofs verified\n", tree.N)
}
