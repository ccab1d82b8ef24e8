/*
 * Exact group-sequential boundaries (seq.h): the two-sided boundaries of
 * the standardised statistic at each look for a spending of alpha, by the
 * recursive numerical integration of Armitage, McPherson and Rowe on the
 * grid of Jennison and Turnbull (Group Sequential Methods, 2000, chapter
 * 19), as ldbounds and gsDesign compute them.
 *
 * Under no change the cumulative statistic is a Brownian motion in the
 * information: Z_k = S_k / sqrt(I_k), S with independent normal increments
 * of variance I_k - I_(k-1), so corr(Z_i, Z_j) = sqrt(I_i / I_j). h_k is
 * the density of Z_k on the paths that crossed no boundary up to look k,
 * held at the points of a grid over (-c_k, c_k) with Simpson's weights.
 */
#include <math.h>
#include <stddef.h>

#include "coordinator/analysis/seq.h"

/*
 * The grid's resolution: J&T's r (gsDesign's default is 18), finer when
 * looks are close, so that the middle of the grid (3 / 4r apart, the
 * midpoints counted) keeps four points a standard deviation of the step
 * from one look to the next, sqrt(1 - I_(k-1) / I_k) on the Z scale.
 */
#define SB_RMIN		18
#define SB_RMAX		64
#define SB_NMAX		(12 * SB_RMAX + 4)	/* the finest grid's points */

/* The upper tail of the standard normal. */
static double
sb_qnorm_upper(double x)
{
	return (0.5 * erfc(x / M_SQRT2));
}

/* The standard normal's density. */
static double
sb_dnorm(double x)
{
	return (exp(-0.5 * x * x) / sqrt(2 * M_PI));
}

/*
 * Fills z and w with the grid and Simpson's weights for (-c, c) (J&T
 * 19.1: dense in the middle, sparse in the tails); returns its points.
 */
static size_t
sb_grid(size_t ri, double c, double *z, double *w)
{
	double	x[6 * SB_RMAX + 1], y[6 * SB_RMAX + 2], r = (double)ri, v;
	size_t	i, m = 0, n;

	for (i = 1; i < 6 * ri; i++) {
		if (i < ri)
			x[i] = -3 - 4 * log(r / (double)i);
		else if (i <= 5 * ri)
			x[i] = -3 + 3 * ((double)i - r) / (2 * r);
		else
			x[i] = 3 + 4 * log(r / (6 * r - (double)i));
	}
	y[m++] = -c;
	for (i = 1; i < 6 * ri; i++) {
		v = x[i];
		if (v > -c && v < c)
			y[m++] = v;
	}
	y[m++] = c;
	/* Odd points are y, even points the midpoints between. */
	n = 2 * m - 1;
	for (i = 0; i < m; i++)
		z[2 * i] = y[i];
	for (i = 0; i + 1 < m; i++)
		z[2 * i + 1] = (y[i] + y[i + 1]) / 2;
	for (i = 0; i < n; i++)
		w[i] = 0;
	for (i = 0; i + 1 < m; i++) {
		v = y[i + 1] - y[i];
		w[2 * i] += v / 6;
		w[2 * i + 1] += 4 * v / 6;
		w[2 * i + 2] += v / 6;
	}
	return (n);
}

/*
 * The probability of crossing (-c, c) first at look k, from h (np points
 * z of look k - 1, information i0) to information i1.
 */
static double
sb_cross(const double *z, const double *h, size_t np, double i0, double i1,
    double c)
{
	double	sd = sqrt(i1 - i0), s0 = sqrt(i0), s1 = sqrt(i1), p = 0, u;
	size_t	i;

	for (i = 0; i < np; i++) {
		u = z[i] * s0;
		p += h[i] * (sb_qnorm_upper((c * s1 - u) / sd) +
		    sb_qnorm_upper((c * s1 + u) / sd));
	}
	return (p);
}

/*
 * The boundary c at which the first crossing at a look is p (it falls as
 * c grows): at the first look (np 0) 2 (1 - Phi(c)), else sb_cross.
 */
static double
sb_solve(const double *z, const double *h, size_t np, double i0, double i1,
    double p)
{
	double	lo = 0, hi = 40, mid, q;
	int	it;

	for (it = 0; it < 60 && hi - lo > 1e-12; it++) {
		mid = (lo + hi) / 2;
		q = np == 0 ? 2 * sb_qnorm_upper(mid) :
		    sb_cross(z, h, np, i0, i1, mid);
		if (q > p)
			lo = mid;
		else
			hi = mid;
	}
	return ((lo + hi) / 2);
}

/*
 * Moves h (np points z, information i0) on to the grid of (-c, c) at
 * information i1: the density there of the paths still inside.
 */
static size_t
sb_update(size_t r, double *z, double *h, size_t np, double i0, double i1,
    double c)
{
	double	nz[SB_NMAX], nw[SB_NMAX], nh[SB_NMAX];
	double	sd = sqrt(i1 - i0), s0 = sqrt(i0), s1 = sqrt(i1), sum;
	size_t	i, j, nn;

	nn = sb_grid(r, c, nz, nw);
	for (j = 0; j < nn; j++) {
		for (sum = 0, i = 0; i < np; i++)
			sum += h[i] * sb_dnorm((nz[j] * s1 - z[i] * s0) / sd);
		nh[j] = nw[j] * sum * s1 / sd;
	}
	for (j = 0; j < nn; j++) {
		z[j] = nz[j];
		h[j] = nh[j];
	}
	return (nn);
}

int
seq_bounds(const double *info, size_t k, const double *spent, double *c,
    double *cum)
{
	double	z[SB_NMAX], w[SB_NMAX], h[SB_NMAX], p, cc, step, total = 0;
	size_t	i, j, np = 0, r = SB_RMIN;

	for (i = 0; i < k; i++) {
		if (!(info[i] > 0) || (i > 0 && !(info[i] > info[i - 1])))
			return (-1);
		if (i == 0)
			continue;
		step = sqrt(1 - info[i - 1] / info[i]);
		while (r < SB_RMAX && 3 / (4 * (double)r) > step / 4)
			r++;
	}
	for (i = 0; i < k; i++) {
		if (spent != NULL) {
			p = spent[i] - total;
			c[i] = !(p > 0) ? INFINITY : sb_solve(z, h, np,
			    i > 0 ? info[i - 1] : 0, info[i], p);
		}
		if (i == 0)
			p = 2 * sb_qnorm_upper(c[i]);
		else
			p = sb_cross(z, h, np, info[i - 1], info[i], c[i]);
		total += p;
		if (cum != NULL)
			cum[i] = total;
		if (i + 1 == k)
			break;
		cc = isfinite(c[i]) ? c[i] : 40;	/* none stop there */
		if (i == 0) {
			np = sb_grid(r, cc, z, w);
			for (j = 0; j < np; j++)
				h[j] = w[j] * sb_dnorm(z[j]);
		} else
			np = sb_update(r, z, h, np, info[i - 1], info[i],
			    cc);
	}
	return (0);
}
