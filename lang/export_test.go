package lang

// EvalExact evaluates with the exact (big.Rat) evaluator only, so that
// tests can compare it with the compiled int64 closures.
func (c *Checked) EvalExact(e Expr, env *Env) (Value, error) {
	ev := evaluator{info: c.Info, src: c.File.Source, geom: c.geom, env: env}
	return ev.eval(e)
}

// EvalCompiled evaluates with the compiled closures only; ok is false where
// there is none or it gives up.
func (c *Checked) EvalCompiled(e Expr, env *Env) (int64, bool) {
	f, ok := c.compiled[e]
	if !ok {
		return 0, false
	}
	return f.fn(env)
}
