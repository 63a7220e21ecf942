/*
 * ttflame.c: `ttdecode flamegraph TRACE OUT.svg [--off-cpu|--wall]
 * [--pid N]`, the profile (ttprof.h) as a flame graph in one SVG file, in
 * the manner of Brendan Gregg's FlameGraph without its Perl: the root
 * ("all") at the bottom, a process above it, then its frames root first,
 * each as wide as the samples (or nanoseconds) of the stacks through it.
 * The embedded script zooms on a click (the frame fills the width, its
 * ancestors stay, the rest goes), resets with "Reset Zoom", searches with
 * "Search" or Ctrl-F (a regular expression; matches turn magenta and the
 * share they cover is shown), and shows a frame's name, value and share
 * on hover.
 *
 * Layout as flamegraph.pl's: the rows (ttprof_rows) sorted by their path
 * (process name, then frame names root first), so that stacks with a
 * common prefix are neighbours; one pass then opens a frame where a path
 * departs from the one before it and draws it where it closes, its x the
 * value before it and its width the value through it. Frames narrower
 * than SVG_MIN_W are not drawn (their value stays in their parents').
 */
#define _GNU_SOURCE		/* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "ttboot.h"
#include "ttdecode.h"
#include "ttprof.h"

#define SVG_W		1200.0
#define SVG_PAD		10.0
#define SVG_FRAME	16.0		/* a frame's height */
#define SVG_TOP		60.0		/* title, buttons */
#define SVG_BOTTOM	34.0		/* the details line */
#define SVG_CHAR	7.0		/* a character at font-size 12 */
#define SVG_MIN_W	0.1		/* pixels */
#define SVG_LABEL	176		/* > SVG_W / SVG_CHAR */

struct flame {
	const struct ttprof *p;
	const struct ttprof_opts *o;
	FILE *f;
	uint64_t total;
	uint32_t depth;			/* the deepest path's frames */
};

static uint32_t path_len(const struct ttprof *p, const struct ttprof_row *r)
{
	return 2 + p->stacks[r->stack].n;
}

/* The frame at depth d >= 2 of r's path (see path_name). */
static int64_t frame_id(const struct ttprof *p, const struct ttprof_row *r,
			uint32_t d)
{
	return p->stack_frames[p->stacks[r->stack].first + path_len(p, r) -
			       1 - d];
}

/* A row's name at depth d of its path: the process at 1, then frames
 * root first (d >= 2); depth 0 is "all". */
static const char *path_name(const struct ttprof *p, const struct ttprof_row *r,
			     uint32_t d, char *buf, size_t size)
{
	if (d == 0)
		return "all";
	if (d == 1)
		return ttprof_comm(p, r->pid, buf, size);
	return p->frames[frame_id(p, r, d)].name;
}

/* Orders rows by path, names compared level by level. */
static int path_cmp(const void *a, const void *b, void *arg)
{
	const struct ttprof *p = arg;
	const struct ttprof_row *x = a, *y = b;
	uint32_t nx = path_len(p, x), ny = path_len(p, y);
	char bx[32], by[32];

	for (uint32_t d = 1; d < nx && d < ny; d++) {
		int c = strcmp(path_name(p, x, d, bx, sizeof(bx)),
			       path_name(p, y, d, by, sizeof(by)));

		if (c)
			return c;
		if (d >= 2 && (c = frame_id(p, x, d) - frame_id(p, y, d)))
			return c;	/* one name in two mappings */
	}
	return nx < ny ? -1 : nx > ny;
}

/* How many levels rows a and b share from the root. */
static uint32_t common(const struct ttprof *p, const struct ttprof_row *a,
		       const struct ttprof_row *b)
{
	uint32_t na = path_len(p, a), nb = path_len(p, b), d = 1;
	char ba[32], bb[32];

	if (strcmp(ttprof_comm(p, a->pid, ba, sizeof(ba)),
		   ttprof_comm(p, b->pid, bb, sizeof(bb))))
		return d;
	for (d = 2; d < na && d < nb; d++)
		if (frame_id(p, a, d) != frame_id(p, b, d))
			break;
	return d;
}

/* A fill per frame: processes green, the kernel orange, boot phases
 * blue, user code yellow-red; the shade from the name, stable. */
static void fill(const struct ttprof *p, const struct ttprof_row *r,
		 uint32_t d, const char *name, char *buf, size_t size)
{
	unsigned h = 2166136261u, hue = 0, sat = 80;
	const char *map = "";

	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	if (d >= 2)
		map = p->mappings[p->frames[frame_id(p, r, d)].mapping].path;
	if (d == 0)
		hue = 0, sat = 0;
	else if (d == 1)
		hue = 100;
	else if (!strcmp(map, "kernel"))
		hue = 20 + h % 20;
	else if (!strcmp(map, "[boot]"))
		hue = 210 + h % 20;
	else
		hue = 40 + h % 25;
	snprintf(buf, size, "hsl(%u,%u%%,%u%%)", hue, sat, 55 + h % 20);
}

/* Draws the frame at depth d of row r's path: value [x, x + w). */
static void frame(struct flame *g, const struct ttprof_row *r, uint32_t d,
		  uint64_t x, uint64_t w)
{
	double fw = SVG_W - 2 * SVG_PAD, px = SVG_PAD + fw * (double)x /
		    (double)g->total, pw = fw * (double)w / (double)g->total;
	double y = SVG_TOP + (g->depth - 1 - d) * SVG_FRAME;
	char buf[32], c[40], label[SVG_LABEL];
	const char *name = path_name(g->p, r, d, buf, sizeof(buf));
	size_t fit = pw > 6 ? (size_t)((pw - 6) / SVG_CHAR) : 0;

	if (pw < SVG_MIN_W)
		return;
	fill(g->p, r, d, name, c, sizeof(c));
	fprintf(g->f, "<g class=\"f\" data-x=\"%llu\" data-w=\"%llu\" "
		"data-d=\"%u\" data-c=\"%s\" data-n=\"", ull(x), ull(w), d, c);
	ttboot_put_escaped(g->f, name, TTBOOT_XML);
	fprintf(g->f, "\"><title>");
	ttboot_put_escaped(g->f, name, TTBOOT_XML);
	if (g->o->view == TTPROF_VIEW_ON)
		fprintf(g->f, " (%llu samples", ull(w));
	else
		fprintf(g->f, " (%.3f ms", (double)w / 1e6);
	fprintf(g->f, ", %.2f%%)</title><rect x=\"%.2f\" y=\"%.1f\" "
		"width=\"%.2f\" height=\"%.0f\" fill=\"%s\" rx=\"2\"/>"
		"<text x=\"%.2f\" y=\"%.1f\">", 100.0 * (double)w /
		(double)g->total, px, y, pw, SVG_FRAME - 1, c, px + 3,
		y + SVG_FRAME - 4);
	if (fit >= 3) {		/* the label, cut to fit with ".." */
		snprintf(label, sizeof(label), "%s", name);
		if (strlen(label) > fit)
			strcpy(&label[fit - 2], "..");
		ttboot_put_escaped(g->f, label, TTBOOT_XML);
	}
	fprintf(g->f, "</text></g>\n");
}

/* The script: zoom, reset, search, details (see the top). */
static const char flame_js[] =
"var frames, details, W, total, pad = 10;\n"
"function init() {\n"
" var svg = document.documentElement;\n"
" W = +svg.getAttribute('width'); total = +svg.getAttribute('data-total');\n"
" details = document.getElementById('details').firstChild;\n"
" frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
" frames.forEach(function (g) {\n"
"  g.onclick = function () { zoom(g); };\n"
"  g.onmouseover = function () {\n"
"   details.nodeValue = g.querySelector('title').textContent; };\n"
"  g.onmouseout = function () { details.nodeValue = ' '; };\n"
" });\n"
" document.getElementById('reset').onclick = function () { zoom(null); };\n"
" document.getElementById('search').onclick = search;\n"
" window.addEventListener('keydown', function (e) {\n"
"  if ((e.ctrlKey || e.metaKey) && e.keyCode === 70) {\n"
"   e.preventDefault(); search(); } });\n"
"}\n"
"function num(g, a) { return +g.getAttribute('data-' + a); }\n"
"function place(g, x0, w0) {\n"
" var x = num(g, 'x'), w = num(g, 'w'), a = Math.max(x, x0),\n"
"  b = Math.min(x + w, x0 + w0), r = g.querySelector('rect'),\n"
"  t = g.querySelector('text'), fw = W - 2 * pad;\n"
" if (b <= a) { g.style.display = 'none'; return; }\n"
" g.style.display = '';\n"
" var px = pad + (a - x0) * fw / w0, pw = (b - a) * fw / w0,\n"
"  name = g.getAttribute('data-n'), n = Math.floor((pw - 6) / 7);\n"
" r.setAttribute('x', px); r.setAttribute('width', pw);\n"
" t.setAttribute('x', px + 3);\n"
" t.textContent = n < 3 ? '' : name.length <= n ? name :\n"
"  name.substring(0, n - 2) + '..';\n"
"}\n"
"function zoom(z) {\n"
" var x0 = z ? num(z, 'x') : 0, w0 = z ? num(z, 'w') : total,\n"
"  d = z ? num(z, 'd') : -1;\n"
" frames.forEach(function (g) {\n"
"  var below = num(g, 'd') < d;\n"
"  if (below && !(num(g, 'x') <= x0 && num(g, 'x') + num(g, 'w') >=\n"
"      x0 + w0)) { g.style.display = 'none'; return; }\n"
"  place(g, x0, w0); g.style.opacity = below ? '0.6' : '';\n"
" });\n"
"}\n"
"function search() {\n"
" var term = prompt('Search for (regular expression):', '');\n"
" if (term === null) return;\n"
" var re = new RegExp(term), iv = [], sum = 0, end = -1;\n"
" frames.forEach(function (g) {\n"
"  var hit = term !== '' && re.test(g.getAttribute('data-n'));\n"
"  g.querySelector('rect').setAttribute('fill', hit ? 'rgb(230,0,230)' :\n"
"   g.getAttribute('data-c'));\n"
"  if (hit) iv.push([num(g, 'x'), num(g, 'x') + num(g, 'w')]);\n"
" });\n"
" iv.sort(function (a, b) { return a[0] - b[0]; });\n"
" iv.forEach(function (v) {\n"
"  if (v[1] > end) { sum += v[1] - Math.max(v[0], end); end = v[1]; } });\n"
" document.getElementById('matched').firstChild.nodeValue = term === '' ?\n"
"  ' ' : 'Matched: ' + (100 * sum / total).toFixed(2) + '%';\n"
"}\n"
"window.addEventListener('load', init);\n";

/* The document's start: its size, the script, the title and buttons. */
static void header(struct flame *g, const char *title)
{
	double h = SVG_TOP + g->depth * SVG_FRAME + SVG_BOTTOM;

	fprintf(g->f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" data-total=\"%llu\" "
		"xmlns=\"http://www.w3.org/2000/svg\" font-family=\"Verdana\" "
		"font-size=\"12\">\n<script type=\"text/ecmascript\">"
		"<![CDATA[\n%s]]></script>\n<rect width=\"100%%\" "
		"height=\"100%%\" fill=\"#f8f8f0\"/>\n<text x=\"%.0f\" y=\"24\" "
		"text-anchor=\"middle\" font-size=\"17\">", SVG_W, h, SVG_W, h,
		ull(g->total), flame_js, SVG_W / 2);
	ttboot_put_escaped(g->f, title, TTBOOT_XML);
	fprintf(g->f, "</text>\n<text id=\"reset\" x=\"%.0f\" y=\"24\" "
		"cursor=\"pointer\">Reset Zoom</text>\n<text id=\"search\" "
		"x=\"%.0f\" y=\"24\" cursor=\"pointer\" text-anchor=\"end\">"
		"Search</text>\n<text id=\"matched\" x=\"%.0f\" y=\"%.0f\" "
		"text-anchor=\"end\"> </text>\n<text id=\"details\" x=\"%.0f\" "
		"y=\"%.0f\"> </text>\n", SVG_PAD, SVG_W - SVG_PAD,
		SVG_W - SVG_PAD, h - 12, SVG_PAD, h - 12);
}

/* Draws the sorted rows r[0..n): flamegraph.pl's flow (see the top). */
static void flow(struct flame *g, const struct ttprof_row *r, uint64_t n)
{
	uint64_t start[TTPROF_MAX_FRAMES + 2], x = 0;
	uint32_t open = 1;	/* levels open: "all" always */

	start[0] = 0;
	for (uint64_t i = 0; i <= n; i++) {
		uint32_t keep = i == n ? 1 : i ? common(g->p, &r[i - 1], &r[i])
					       : 1;

		while (open > keep) {
			open--;
			frame(g, &r[i - 1], open, start[open],
			      x - start[open]);
		}
		if (i == n)
			break;
		for (; open < path_len(g->p, &r[i]); open++)
			start[open] = x;
		x += r[i].value;
	}
	if (n)
		frame(g, &r[0], 0, 0, x);
}

/* Writes p's samples that o wants to out as an SVG flame graph, titled
 * by the view and o->trace. Returns 0, or -1 when out of memory. */
int ttprof_write_svg(const struct ttprof *p, const struct ttprof_opts *o,
		     FILE *out)
{
	static const char *const what[] = { "on-CPU", "off-CPU", "wall-clock" };
	struct flame g = { p, o, out, 0, 1 };
	uint64_t n;
	struct ttprof_row *r = ttprof_rows(p, o, &n);
	char title[256];

	if (!r)
		return -1;
	qsort_r(r, n, sizeof(*r), path_cmp, (void *)p);
	for (uint64_t i = 0; i < n; i++) {
		g.total += r[i].value;
		if (path_len(p, &r[i]) > g.depth)
			g.depth = path_len(p, &r[i]);
	}
	snprintf(title, sizeof(title), "%s flame graph of %s", what[o->view],
		 o->trace ? o->trace : "a profile");
	header(&g, title);
	if (!g.total)
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">no samples</text>\n",
			SVG_PAD, SVG_TOP + SVG_FRAME);
	else
		flow(&g, r, n);
	fprintf(out, "</svg>\n");
	free(r);
	return 0;
}

#define FLAME_USAGE "flamegraph TRACE OUT.svg" TTPROF_OPTIONS

static int ttdecode_flamegraph(int argc, char **argv)
{
	return ttprof_command(argc, argv, 1, FLAME_USAGE, ttprof_write_svg);
}

static const struct ttdecode_command cmd_flamegraph = {
	"flamegraph", 2, ttdecode_flamegraph, FLAME_USAGE };
TTDECODE_COMMAND(cmd_flamegraph);
