/*
 * ttdecode boot --svg: the boot profile (tools/export/ttboot.h) as an SVG
 * timeline a browser shows: one lane per CPU, each phase a rectangle
 * (labelled where the label fits, with a <title> tooltip giving its name,
 * duration and start), an axis in milliseconds since power-on, and the
 * first user process and the shell prompt as dashed lines, their labels
 * staggered in rows where they would overlap. Written as a
 * stream of plain SVG 1.1 elements; names are XML-escaped.
 */
#include <string.h>

#include "ttboot.h"

#define ull(x)	((unsigned long long)(x))

#define SVG_W		1200.0		/* the time axis, pixels */
#define SVG_LEFT	70.0		/* lane labels */
#define SVG_MARKS	2		/* milestones: first process, prompt */
#define SVG_ROW		12.0		/* a row of milestone labels */
#define SVG_TOP		(28.0 + SVG_MARKS * SVG_ROW)	/* the axis */
#define SVG_LANE	44.0
#define SVG_BAR		30.0
#define SVG_CHAR	6.0	/* a label character at font-size 10, at most */
#define SVG_GAP		4.0	/* between two labels in a row */

static double svg_x(const struct ttboot *p, uint64_t ticks)
{
	return SVG_LEFT + (p->end ? SVG_W * (double)ticks / (double)p->end : 0);
}

/* A colour per phase name, stable across runs. */
static unsigned svg_hue(const char *name)
{
	unsigned h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h % 360;
}

static void svg_phase(const struct ttboot *p, const struct ttboot_phase *ph,
		      FILE *f)
{
	double x = svg_x(p, ph->start), w = svg_x(p, ph->end) - x;
	double y = SVG_TOP + ph->cpu * SVG_LANE + (SVG_LANE - SVG_BAR) / 2;

	fprintf(f, "<g><title>cpu%u ", ph->cpu);
	ttboot_put_escaped(f, ph->name, TTBOOT_XML);
	fprintf(f, " %llu: %.3f ms at %.3f ms</title>\n", ull(ph->arg),
		ttboot_ms(p, ph->end - ph->start), ttboot_ms(p, ph->start));
	fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.0f\" "
		"fill=\"hsl(%u,60%%,70%%)\" stroke=\"#333\" stroke-width=\"0.5\"/>\n",
		x, y, w < 0.5 ? 0.5 : w, SVG_BAR, svg_hue(ph->name));
	if (w >= 7.0 * (double)strlen(ph->name)) {	/* the label fits */
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\">",
			x + 2, y + SVG_BAR / 2 + 4);
		ttboot_put_escaped(f, ph->name, TTBOOT_XML);
		fprintf(f, "</text>\n");
	}
	fprintf(f, "</g>\n");
}

/* A milestone: a vertical line across every lane at ticks, labelled. */
struct svg_mark {
	uint64_t ticks;
	const char *label;
	char text[64];		/* "LABEL N.N ms" */
	double x, width;	/* the line; the text */
	unsigned row;		/* 0: nearest the axis */
};

/*
 * Gives each of the n marks (in time order) the row nearest the axis in
 * which its label, drawn to the left of its line, clears every label
 * already there: labels closer than their text's width are staggered, so
 * none prints over another. n rows always suffice.
 */
static void svg_mark_rows(struct svg_mark *m, size_t n)
{
	double right[SVG_MARKS];	/* per row: where its labels end */

	for (size_t r = 0; r < n; r++)
		right[r] = -1e9;
	for (size_t i = 0; i < n; i++) {
		double left = m[i].x - 2 - m[i].width;

		m[i].row = 0;
		while (m[i].row + 1 < n && right[m[i].row] + SVG_GAP > left)
			m[i].row++;
		right[m[i].row] = m[i].x - 2;
	}
}

static void svg_milestone(FILE *f, const struct svg_mark *m, double height)
{
	double y = SVG_TOP - 8 - m->row * SVG_ROW;

	fprintf(f, "<line x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.2f\" "
		"stroke=\"#c00\" stroke-dasharray=\"4 2\"/>\n", m->x, y + 2,
		m->x, height);
	fprintf(f, "<text x=\"%.2f\" y=\"%.0f\" font-size=\"10\" fill=\"#c00\" "
		"text-anchor=\"end\">%s</text>\n", m->x - 2, y, m->text);
}

/* The first process and the prompt, those the profile has. */
static void svg_milestones(const struct ttboot *p, FILE *f, double height)
{
	struct svg_mark m[SVG_MARKS];
	size_t n = 0;

	if (p->has_first_process)
		m[n++] = (struct svg_mark){ .ticks = p->first_process,
					    .label = "first process" };
	if (p->has_prompt)
		m[n++] = (struct svg_mark){ .ticks = p->prompt,
					    .label = "prompt" };
	if (n == 2 && m[1].ticks < m[0].ticks) {
		struct svg_mark t = m[0];

		m[0] = m[1];
		m[1] = t;
	}
	for (size_t i = 0; i < n; i++) {
		m[i].x = svg_x(p, m[i].ticks);
		m[i].width = SVG_CHAR * snprintf(m[i].text, sizeof(m[i].text),
						 "%s %.1f ms", m[i].label,
						 ttboot_ms(p, m[i].ticks));
	}
	svg_mark_rows(m, n);
	for (size_t i = 0; i < n; i++)
		svg_milestone(f, &m[i], height);
}

static void svg_axis(const struct ttboot *p, FILE *f, double height)
{
	double total = ttboot_ms(p, p->end);
	double step = 1;

	while (total / step > 10)
		step *= total / step > 50 ? 10 : 2;
	for (double t = 0; t <= total; t += step) {
		double x = SVG_LEFT + (total > 0 ? SVG_W * t / total : 0);

		fprintf(f, "<line x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.2f\" "
			"stroke=\"#ddd\"/>\n<text x=\"%.2f\" y=\"%.2f\" "
			"font-size=\"10\" text-anchor=\"middle\">%g ms</text>\n",
			x, SVG_TOP, x, height, x, height + 12, t);
	}
}

/* The timeline: one lane per CPU, phases as labelled rectangles (each
 * with a tooltip), the first process and the prompt as lines. */
void ttboot_print_svg(const struct ttboot *p, FILE *f)
{
	double height = SVG_TOP + p->ncpus * SVG_LANE;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"4\" y=\"14\" font-size=\"13\">boot profile: %.3f ms "
		"from power-on to %s</text>\n", SVG_LEFT + SVG_W + 20,
		height + 24, ttboot_ms(p, p->end),
		p->has_prompt ? "the shell prompt" : "the last record");
	svg_axis(p, f, height);
	for (uint32_t c = 0; c < p->ncpus; c++)
		fprintf(f, "<text x=\"4\" y=\"%.2f\" font-size=\"12\">CPU %u"
			"</text>\n", SVG_TOP + c * SVG_LANE + SVG_LANE / 2 + 4, c);
	for (size_t i = 0; i < p->nphases; i++)
		svg_phase(p, &p->phases[i], f);
	svg_milestones(p, f, height);
	fprintf(f, "</svg>\n");
}
