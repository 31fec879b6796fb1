package codegen

import (
	"fmt"
	"strconv"
	"strings"

	"perfc/lang"
)

// Non-blocking messages become calls of the runtime's request methods
// (codegen/spmd/requests.go): r.isend, r.irecv, r.waitReqs, r.waitAll, and
// r.requestsDone at the end of every loop iteration that posts and of
// the kernel body. A var or `SIZE bytes` payload of a post lives in the
// request's own buffer while the message is in flight; a var received by
// an irecv is copied back at the wait that completes it.

// post writes `isend P to PEER as R` and `irecv P from PEER as R`.
func (g *generator) post(s *lang.CommStmt) (string, []payload) {
	req, ok := g.info.RequestNumber(s.Req.Name)
	if !ok {
		g.fail(s, "request %s is not numbered by the checker", s.Req.Name)
		return "", nil
	}
	kind, method := "siteISend", "isend"
	if s.Kind == lang.IRecv {
		kind, method = "siteIRecv", "irecv"
	}
	site := g.p2pSite(s, kind, s.Peer)
	if n := len(g.loopPosts); n > 0 {
		g.loopPosts[n-1] = append(g.loopPosts[n-1], site)
	}
	p := g.postPayload(s.Payload, req, s.Kind == lang.ISend)
	return fmt.Sprintf("r.%s(%d, %s, %s, %d)", method, site, g.expr(s.Peer, "int").text, p.bytes, req), []payload{p}
}

// varPost is an irecv into a var: its value is copied back at the wait.
type varPost struct {
	stmt string // the post's position, which the runtime reports
	req  int
	obj  *lang.Object
}

// collectVarPosts lists the irecvs into a var by request name, before the
// body is written: a wait may precede its post in the text (a loop that
// waits for the previous iteration's request).
func (g *generator) collectVarPosts() {
	g.varPosts = map[string][]varPost{}
	lang.Inspect(g.k.Kernel.Body, func(n lang.Node) bool {
		s, ok := n.(*lang.CommStmt)
		if !ok || s.Kind != lang.IRecv || s.Payload == nil || s.Payload.Name == nil || s.Req == nil {
			return true
		}
		obj := g.info.Uses[s.Payload.Name]
		req, found := g.info.RequestNumber(s.Req.Name)
		if obj != nil && obj.Kind == lang.VarObj && found {
			g.varPosts[s.Req.Name] = append(g.varPosts[s.Req.Name], varPost{stmt: g.pos(s), req: req, obj: obj})
		}
		return true
	})
}

// postPayload writes the payload of a post: an array's memory, or the
// request's buffer for a var (holding its value when it is sent) or for
// `SIZE bytes`.
func (g *generator) postPayload(pl *lang.Payload, req int, sends bool) payload {
	if pl.Bytes != nil {
		return payload{bytes: fmt.Sprintf("r.reqBuf(%d, %s)", req, g.expr(pl.Bytes, "int").text), elem: "elBytes"}
	}
	obj := g.info.Uses[pl.Name]
	if obj != nil && obj.Kind == lang.VarObj {
		if sends {
			return payload{bytes: fmt.Sprintf("reqVar(r, %d, %s)", req, g.names.name(obj)), elem: elemKind(obj.Elem), name: obj.Elem.String()}
		}
		return payload{bytes: fmt.Sprintf("r.reqBuf(%d, %d)", req, obj.Elem.Size()), elem: elemKind(obj.Elem), name: obj.Elem.String()}
	}
	return g.payload(pl, 0, !sends, !sends)
}

// wait writes `wait a, b` and `waitall`, then copies back the vars that
// the requests it completed received.
func (g *generator) wait(s *lang.WaitStmt) {
	site := g.addSite(site{kind: "siteWait", region: g.region, stmt: g.pos(s)})
	var names []string
	if s.All {
		g.line("r.waitAll(%d) // waitall at %s", site, g.lineCol(s))
		for _, id := range g.info.Requests {
			names = append(names, id.Name)
		}
	} else {
		var nums []string
		for _, id := range s.Reqs {
			n, _ := g.info.RequestNumber(id.Name)
			nums = append(nums, strconv.Itoa(n))
			names = append(names, id.Name)
		}
		g.line("r.waitReqs(%d, %s) // wait at %s", site, strings.Join(nums, ", "), g.lineCol(s))
	}
	// A var an irecv received is copied back when this wait completed
	// that post.
	for _, name := range names {
		for _, vp := range g.varPosts[name] {
			g.line("if r.completedAt(%d) == %s { %s = varValue[%s](r.reqBuf(%d, %d)) }",
				vp.req, strconv.Quote(vp.stmt), g.names.name(vp.obj), elemGoType(vp.obj.Elem), vp.req, vp.obj.Elem.Size())
		}
	}
}

// loopIteration writes the body of a loop, and after it the check that
// no request posted in the iteration is still active; iter is the site
// of the loop's iterations, which names the loop.
func (g *generator) loopIteration(body *lang.Block, iter int) {
	g.loopPosts = append(g.loopPosts, nil)
	g.block(body, false)
	posts := g.loopPosts[len(g.loopPosts)-1]
	g.loopPosts = g.loopPosts[:len(g.loopPosts)-1]
	if len(posts) == 0 {
		return
	}
	list := make([]string, len(posts))
	for i, p := range posts {
		list[i] = strconv.Itoa(p)
	}
	g.line("r.requestsDone(%d, %s)", iter, strings.Join(list, ", "))
}
