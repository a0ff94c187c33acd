// The Go worker: Go's crypto (the standard library, and golang.org/x/crypto for what it lacks)
// behind cryptospeed's worker protocol (docs/worker-protocol.md), so Go's implementations are
// measured as one more column beside the libraries the Rust worker hosts. It exists as its own
// executable because Go's crypto can only be called from Go at full speed, and because
// GODEBUG=cpu.X=off must be read by the Go runtime as it starts.
//
// The worker answers `hello` with "measures": false and "wants_vectors": true: the orchestrator
// sends the catalog's known-answer vectors (one source, in Rust) in a `vectors` request, runs the
// known-answer tests through `verify`, and drives the sampling itself through `sample` requests,
// which this worker answers by timing a batch of calls with its own clocks.

//go:debug rsa1024min=0

package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
)

// protocolVersion is the worker protocol version this worker speaks.
const protocolVersion = 2

type cellSpec struct {
	Primitive string  `json:"primitive"`
	Op        string  `json:"op"`
	Bytes     *uint64 `json:"bytes"`
	Misalign  uint32  `json:"misalign"`
}

type agreementInputs struct {
	Key  string `json:"key"`
	IV   string `json:"iv"`
	Msg  string `json:"msg"`
	AAD  string `json:"aad"`
	Peer string `json:"peer"`
}

type request struct {
	Cmd        string           `json:"cmd"`
	Protocol   int              `json:"protocol"`
	Primitives json.RawMessage  `json:"primitives"`
	Primitive  string           `json:"primitive"`
	Inputs     *agreementInputs `json:"inputs"`
	Public     string           `json:"public"`
	Msg        string           `json:"msg"`
	Signature  string           `json:"signature"`
	Cell       *cellSpec        `json:"cell"`
	Iters      uint64           `json:"iters"`
}

type variant struct {
	Label          string   `json:"label"`
	Implementation string   `json:"implementation"`
	Version        string   `json:"version"`
	Library        string   `json:"library"`
	BuildInfo      []string `json:"build_info"`
	Capabilities   string   `json:"capabilities"`
	FeatureMask    string   `json:"feature_mask"`
}

type availabilityEntry struct {
	Primitive string  `json:"primitive"`
	Available bool    `json:"available"`
	Reason    *string `json:"reason,omitempty"`
	// Library is the Go package that serves the primitive, with its version (modules.go).
	Library string `json:"library,omitempty"`
}

type sample struct {
	Iters  uint64 `json:"iters"`
	WallNs uint64 `json:"wall_ns"`
	CPUNs  uint64 `json:"cpu_ns"`
	TSC    uint64 `json:"tsc"`
	Bout   uint32 `json:"bout"`
}

// worker is the state of one worker process: the catalog it was sent, the verdict of each
// primitive's known-answer tests, and the cells set up for sampling.
type worker struct {
	catalog map[string]*prim
	// avail holds each primitive's unavailability reason ("" when available), probed once.
	avail map[string]string
	kats  map[string]error
	cells map[string]*cell
	fault string
}

// unavailable is empty when Go offers the primitive, else why not; the probe (which sets the
// primitive up, RSA keys included) runs once per primitive.
func (w *worker) unavailable(p *prim) string {
	why, done := w.avail[p.ID]
	if !done {
		why = unavailable(p)
		w.avail[p.ID] = why
	}
	return why
}

func errorReply(format string, args ...any) map[string]any {
	return map[string]any{"reply": "error", "message": fmt.Sprintf(format, args...)}
}

func describe() variant {
	exe, _ := os.Executable()
	v := variant{
		Label:          "go",
		Implementation: "go",
		Version: fmt.Sprintf("%s, golang.org/x/crypto %s, circl %s", runtime.Version(),
			moduleVersion(xcrypto), moduleVersion(circl)),
		Library: "Go standard library, golang.org/x/crypto and Cloudflare's CIRCL (ML-KEM-512, ML-DSA, SLH-DSA), statically linked into " + exe,
		BuildInfo: []string{
			"sampled by the orchestrator: the Go worker reads its clocks around each batch of calls",
			"rsa: signs the 36-byte message raw with PKCS#1 v1.5 (crypto.Hash(0)), as openssl speed; rsa-512 allowed by //go:debug rsa1024min=0",
			"ecdsa, dsa: sign the 20-byte message as a digest, as openssl speed; the signature is ASN.1 DER",
			"cbc, ctr, rc4: one cipher.BlockMode/Stream per cell, chaining across calls as openssl speed",
			"ghash: GMAC as AES-GCM Seal with the message as associated data and no plaintext",
		},
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "GOAMD64", "GOEXPERIMENT", "CGO_ENABLED", "-trimpath", "-tags":
				v.BuildInfo = append(v.BuildInfo, "go build "+s.Key+"="+s.Value)
			}
		}
	}
	if env := os.Getenv("GODEBUG"); env != "" {
		var cpu []string
		for _, part := range strings.Split(env, ",") {
			if strings.HasPrefix(part, "cpu.") {
				cpu = append(cpu, part)
			}
		}
		if len(cpu) > 0 {
			// Hidden CPU features are part of the variant: its label and its feature mask.
			v.FeatureMask = "GODEBUG=" + strings.Join(cpu, ",")
			v.Capabilities = v.FeatureMask
			v.Label = "go+" + strings.Join(cpu, ",")
		}
	}
	return v
}

// faultKAT is the primitive whose known-answer test the CRYPTOSPEED_FAULT=kat:ID test hook
// makes fail (and whose agreement output it corrupts), as in the Rust worker.
func faultKAT() string {
	for _, part := range strings.Split(os.Getenv("CRYPTOSPEED_FAULT"), ",") {
		if id, ok := strings.CutPrefix(part, "kat:"); ok {
			return id
		}
	}
	return ""
}

// verify runs a primitive's known-answer tests once and remembers the verdict.
func (w *worker) verify(id string) error {
	if err, done := w.kats[id]; done {
		return err
	}
	p, ok := w.catalog[id]
	var err error
	switch {
	case len(w.catalog) == 0:
		err = fmt.Errorf("no known-answer vectors were sent (the orchestrator sends them after hello)")
	case !ok:
		err = fmt.Errorf("unknown primitive %s", id)
	default:
		if why := w.unavailable(p); why != "" {
			err = fmt.Errorf("%s", why)
		} else {
			err = knownAnswers(p)
		}
	}
	if err == nil && w.fault == id {
		err = fmt.Errorf("known-answer test failed: output corrupted by CRYPTOSPEED_FAULT")
	}
	w.kats[id] = err
	return err
}

func (w *worker) handle(r *request) map[string]any {
	switch r.Cmd {
	case "hello":
		if r.Protocol != protocolVersion {
			return errorReply("worker speaks protocol %d, not %d", protocolVersion, r.Protocol)
		}
		return map[string]any{"reply": "hello", "protocol": protocolVersion, "variant": describe(),
			"measures": false, "wants_vectors": true}
	case "vectors":
		var list []*prim
		if err := json.Unmarshal(r.Primitives, &list); err != nil {
			return errorReply("malformed vectors: %v", err)
		}
		w.catalog = map[string]*prim{}
		w.avail = map[string]string{}
		w.kats = map[string]error{}
		w.cells = map[string]*cell{}
		for _, p := range list {
			w.catalog[p.ID] = p
		}
		// Reading the vectors leaves megabytes of garbage; collect it now rather than beside a
		// timed batch later.
		runtime.GC()
		return map[string]any{"reply": "vectors", "count": len(list)}
	case "availability":
		var ids []string
		if err := json.Unmarshal(r.Primitives, &ids); err != nil {
			return errorReply("malformed availability request: %v", err)
		}
		entries := make([]availabilityEntry, 0, len(ids))
		for _, id := range ids {
			e := availabilityEntry{Primitive: id, Available: true}
			why := ""
			if p, ok := w.catalog[id]; ok {
				why = w.unavailable(p)
			} else if len(w.catalog) == 0 {
				why = "no vectors were sent to the Go worker"
			} else {
				why = "unknown primitive " + id
			}
			if why != "" {
				e.Available, e.Reason = false, &why
			} else {
				e.Library = moduleOf(w.catalog[id])
			}
			entries = append(entries, e)
		}
		return map[string]any{"reply": "availability", "entries": entries}
	case "verify":
		detail, ok := "", true
		if err := w.verify(r.Primitive); err != nil {
			detail, ok = err.Error(), false
		} else {
			var sources []string
			for _, k := range w.catalog[r.Primitive].Kats {
				if k.Kind == "kem-decaps" && !isKem512(w.catalog[r.Primitive]) {
					// See kem.go: Go loads no expanded decapsulation key.
					sources = append(sources, "decapsulation checked on the keyGen vector's key (Go loads no expanded key, so "+k.Source+" cannot run)")
					continue
				}
				sources = append(sources, k.Source)
			}
			detail = strings.Join(sources, "; ")
		}
		reply := map[string]any{"reply": "verify", "primitive": r.Primitive, "ok": ok, "detail": detail}
		if f, counted := checkedFlights[r.Primitive]; counted && ok {
			reply["flights"] = f // a handshake cell's bytes on the wire, from its check
		}
		return reply
	case "agree":
		return w.agree(r)
	case "check_signature":
		p, ok := w.catalog[r.Primitive]
		if !ok {
			return errorReply("unknown primitive %s", r.Primitive)
		}
		public, e1 := hex.DecodeString(r.Public)
		msg, e2 := hex.DecodeString(r.Msg)
		sig, e3 := hex.DecodeString(r.Signature)
		if e1 != nil || e2 != nil || e3 != nil {
			return errorReply("check_signature fields must be hex")
		}
		good, err := checkSignature(p, public, msg, sig)
		detail := ""
		switch {
		case err != nil:
			good, detail = false, err.Error()
		case !good:
			detail = "signature rejected"
		}
		return map[string]any{"reply": "checked", "primitive": r.Primitive, "ok": good, "detail": detail}
	case "sample":
		if r.Cell == nil {
			return errorReply("sample needs a cell")
		}
		s, err := w.sample(r.Cell, r.Iters)
		if err != nil {
			return errorReply("%v", err)
		}
		return map[string]any{"reply": "sample", "sample": s}
	case "measure":
		return errorReply("the Go worker leaves sampling to the orchestrator (hello says \"measures\": false); send sample")
	case "profile":
		return errorReply("the Go worker cannot be profiled (it has no valgrind markers)")
	case "quit":
		return map[string]any{"reply": "bye"}
	}
	return errorReply("unknown request %q", r.Cmd)
}

func (w *worker) agree(r *request) map[string]any {
	p, ok := w.catalog[r.Primitive]
	if !ok || r.Inputs == nil {
		return errorReply("unknown primitive %s or no inputs", r.Primitive)
	}
	if why := w.unavailable(p); why != "" {
		return errorReply("%s", why)
	}
	if w.fault != p.ID {
		if err := w.verify(p.ID); err != nil {
			return errorReply("%v", err)
		}
	}
	var c agreementCase
	var errs [5]error
	c.key, errs[0] = hex.DecodeString(r.Inputs.Key)
	c.iv, errs[1] = hex.DecodeString(r.Inputs.IV)
	c.msg, errs[2] = hex.DecodeString(r.Inputs.Msg)
	c.aad, errs[3] = hex.DecodeString(r.Inputs.AAD)
	c.peer, errs[4] = hex.DecodeString(r.Inputs.Peer)
	for _, e := range errs {
		if e != nil {
			return errorReply("agreement inputs must be hex: %v", e)
		}
	}
	out, public, err := agreement(p, &c)
	if err != nil {
		return errorReply("%v", err)
	}
	if w.fault == p.ID && len(out) > 0 {
		out[0] ^= 0x01
	}
	reply := map[string]any{"reply": "agreement", "primitive": p.ID, "output": hex.EncodeToString(out)}
	if len(public) > 0 {
		reply["public"] = hex.EncodeToString(public)
	}
	return reply
}

// dieWithParent asks the kernel to kill this worker when the process that started it dies,
// as the protocol requires (a killed run must not leave workers spinning).
func dieWithParent() {
	const prSetPdeathsig = 1
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetPdeathsig, uintptr(syscall.SIGKILL), 0)
}

func main() {
	dieWithParent()
	w := &worker{avail: map[string]string{}, kats: map[string]error{}, cells: map[string]*cell{},
		fault: faultKAT()}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var r request
			var reply map[string]any
			if e := json.Unmarshal(line, &r); e != nil {
				reply = errorReply("malformed request: %v", e)
			} else {
				reply = w.handle(&r)
			}
			text, e := json.Marshal(reply)
			if e != nil {
				text, _ = json.Marshal(errorReply("cannot encode the reply: %v", e))
			}
			out.Write(text)
			out.WriteByte('\n')
			out.Flush()
			if r.Cmd == "quit" {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
