// Package fit holds the least-squares fits of calibration: the
// non-negative linear fit of measured times on counted work, Hockney's
// t0 + n/r∞ (and piecewise laws where one does not fit), each with its
// residuals kept, so that a table can say how well its numbers fit.
package fit
