/* junit.c - the night as JUnit XML (junit.xml), written with libxml2's
 * xmlTextWriter: one <testsuite> per target, one <testcase> (classname
 * "<suite>.<target>") per boot, workload check, judged metric and
 * comparison. A regression or failed check is a <failure> whose message
 * names it; the same text is in the element's body and in <system-out>,
 * because GitLab shows only the body and ignores the message attribute.
 * Validated in the tests against tests/schemas/junit-10.xsd. */
#define _GNU_SOURCE
#include "nightly.h"
#include "util.h"

#include <libxml/xmlwriter.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* XML 1.0 has no place for most control characters, even as &#N;, and
 * libxml2 wants UTF-8: anything else becomes '?'. Returns a malloc'd copy. */
static xmlChar *xml_text(const char *s)
{
	size_t n = strlen(s);
	unsigned char *o = malloc(n + 1);

	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		o[i] = (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || ch == 0x7f ? '?' : ch;
	}
	o[n] = 0;
	if (xmlCheckUTF8(o) != 1)
		for (size_t i = 0; i < n; i++)
			if (o[i] >= 0x80)
				o[i] = '?';
	return o;
}

static int attr(xmlTextWriterPtr w, const char *name, const char *val)
{
	xmlChar *v = xml_text(val);
	int rc = v ? xmlTextWriterWriteAttribute(w, BAD_CAST name, v) : -1;

	free(v);
	return rc < 0 ? -1 : 0;
}

static int attrf(xmlTextWriterPtr w, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int attrf(xmlTextWriterPtr w, const char *name, const char *fmt, ...)
{
	char buf[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return attr(w, name, buf);
}

static int text_elem(xmlTextWriterPtr w, const char *name, const char *text)
{
	xmlChar *t = xml_text(text);
	int rc = t ? xmlTextWriterWriteElement(w, BAD_CAST name, t) : -1;

	free(t);
	return rc < 0 ? -1 : 0;
}

static bool in_junit(const struct hb_ncase *c)
{
	/* measurements that were not judged are in KCIDB, not JUnit */
	return c->kind != HB_NK_METRIC || c->judged;
}

static const char *kind_prefix(enum hb_nkind k)
{
	return k == HB_NK_CHECK ? "check " : k == HB_NK_METRIC ? "metric " : "";
}

static void count(const struct hb_ntarget *t, int *tests, int *fail, int *err, int *skip)
{
	for (size_t j = 0; j < t->n; j++) {
		const struct hb_ncase *c = &t->cases[j];

		if (!in_junit(c))
			continue;
		(*tests)++;
		*fail += c->status == HB_NS_FAIL;
		*err += c->status == HB_NS_ERROR || c->status == HB_NS_MISS;
		*skip += c->status == HB_NS_SKIP;
	}
}

static int write_case(xmlTextWriterPtr w, const struct hb_ntarget *t, const struct hb_ncase *c)
{
	char cls[300], name[256], *body = NULL;
	const char *el = NULL;
	int rc = 0;

	snprintf(cls, sizeof(cls), "%s.%s", t->suite, t->name);
	snprintf(name, sizeof(name), "%s%s", kind_prefix(c->kind), c->name);
	if (c->status == HB_NS_FAIL)
		el = "failure";
	else if (c->status == HB_NS_ERROR || c->status == HB_NS_MISS)
		el = "error";
	else if (c->status == HB_NS_SKIP)
		el = "skipped";
	if (asprintf(&body, "%s\n%s", c->message, c->output ? c->output : "") < 0)
		return -1;
	rc |= xmlTextWriterStartElement(w, BAD_CAST "testcase") < 0;
	rc |= attr(w, "classname", cls);
	rc |= attr(w, "name", name);
	if ((c->kind == HB_NK_BOOT || c->kind == HB_NK_BISECT) && c->has_value)
		rc |= attrf(w, "time", "%.3f", c->value);
	if (el) {
		xmlChar *b = xml_text(body);

		rc |= xmlTextWriterStartElement(w, BAD_CAST el) < 0;
		rc |= attr(w, "type", c->kind == HB_NK_CHECK	? "check"
				      : c->kind == HB_NK_METRIC ? "regression"
				      : c->kind == HB_NK_COMPARE ? "compare"
				      : c->kind == HB_NK_BISECT ? "bisect"
								 : "boot");
		rc |= attr(w, "message", c->message);
		rc |= !b || xmlTextWriterWriteString(w, b) < 0;
		rc |= xmlTextWriterEndElement(w) < 0;
		free(b);
	}
	if (c->message[0])
		rc |= text_elem(w, "system-out", body);
	rc |= xmlTextWriterEndElement(w) < 0;
	free(body);
	return rc ? -1 : 0;
}

static int write_suite(xmlTextWriterPtr w, const struct hb_night *n, const struct hb_ntarget *t)
{
	int tests = 0, fail = 0, err = 0, skip = 0, rc = 0;

	count(t, &tests, &fail, &err, &skip);
	rc |= xmlTextWriterStartElement(w, BAD_CAST "testsuite") < 0;
	rc |= attr(w, "name", t->name);
	rc |= attrf(w, "tests", "%d", tests);
	rc |= attrf(w, "failures", "%d", fail);
	rc |= attrf(w, "errors", "%d", err);
	rc |= attrf(w, "skipped", "%d", skip);
	rc |= attrf(w, "time", "%.3f", t->time_s);
	rc |= attr(w, "timestamp", t->started[0] ? t->started : n->started);
	if (n->host[0])
		rc |= attr(w, "hostname", n->host);
	rc |= xmlTextWriterStartElement(w, BAD_CAST "properties") < 0;
	{
		const struct hb_nculprit *cu = &t->culprit;
		char idx[32];
		const char *more[][2] = {
			/* a git range's local tree too (JUnit asks no https) */
			{ "git_repository_url", t->git_url[0] ? t->git_url : t->git_tree },
			{ "good_commit_hash", t->good_commit },
			{ "git_commit_hash", t->commit },
			{ "git_repository_branch", t->branch },
			{ "package", t->package },
			{ "source", t->source_id },
			{ "culprit", cu->found ? idx : "" },
			{ "culprit_patch", cu->patch },
			{ "culprit_commit", cu->commit },
			{ "culprit_subject", cu->subject },
			{ "culprit_verified", !cu->found ? "" : cu->verified ? "yes" : "no" },
			{ "culprit_verification", cu->found ? cu->verify : "" },
			{ "bisect", cu->tried ? cu->result : "" },
		};

		snprintf(idx, sizeof(idx), "%d/%d", cu->index, cu->n);
		for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
			if (!more[i][1][0])
				continue;
			rc |= xmlTextWriterStartElement(w, BAD_CAST "property") < 0;
			rc |= attr(w, "name", more[i][0]);
			rc |= attr(w, "value", more[i][1]);
			rc |= xmlTextWriterEndElement(w) < 0;
		}
	}
	{
		const char *props[][2] = {
			{ "suite", t->suite },
			{ "compared_with", t->against[0] ? t->against : "nothing" },
			{ "compared_with_kind", t->against_kind[0] ? t->against_kind : "none" },
			{ "kernel_release", t->kernel_release },
			{ "group", t->group },
			{ "connect", t->connect[0] ? t->connect : "local" },
			{ "reproduce", t->reproduce },
		};

		for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
			rc |= xmlTextWriterStartElement(w, BAD_CAST "property") < 0;
			rc |= attr(w, "name", props[i][0]);
			rc |= attr(w, "value", props[i][1]);
			rc |= xmlTextWriterEndElement(w) < 0;
		}
	}
	rc |= xmlTextWriterEndElement(w) < 0;
	for (size_t j = 0; j < t->n; j++)
		if (in_junit(&t->cases[j]))
			rc |= write_case(w, t, &t->cases[j]);
	if (t->state_reason[0])
		rc |= text_elem(w, "system-out", t->state_reason);
	rc |= xmlTextWriterEndElement(w) < 0;
	return rc ? -1 : 0;
}

int hb_junit_write(const struct hb_night *n, const char *path, char *err, size_t errlen)
{
	int tests = 0, fail = 0, errs = 0, skip = 0, rc = 0;
	char tmp[PATH_MAX + 8], name[96];
	xmlTextWriterPtr w;

	LIBXML_TEST_VERSION;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	w = xmlNewTextWriterFilename(tmp, 0);
	if (!w) {
		snprintf(err, errlen, "cannot write %s", tmp);
		return -1;
	}
	for (size_t i = 0; i < n->n; i++)
		count(&n->t[i], &tests, &fail, &errs, &skip);
	rc |= xmlTextWriterSetIndent(w, 1) < 0;
	rc |= xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL) < 0;
	rc |= xmlTextWriterStartElement(w, BAD_CAST "testsuites") < 0;
	snprintf(name, sizeof(name), "hugebench nightly %s", n->stamp);
	rc |= attr(w, "name", name);
	rc |= attrf(w, "tests", "%d", tests);
	rc |= attrf(w, "failures", "%d", fail);
	rc |= attrf(w, "errors", "%d", errs);
	rc |= attrf(w, "time", "%.3f", n->time_s);
	for (size_t i = 0; i < n->n; i++)
		rc |= write_suite(w, n, &n->t[i]);
	rc |= xmlTextWriterEndElement(w) < 0;
	rc |= xmlTextWriterEndDocument(w) < 0;
	xmlFreeTextWriter(w);
	if (rc || rename(tmp, path)) {
		snprintf(err, errlen, "cannot write %s", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}
