/* smaps.c - the huge pages of chosen mappings in /proc/<pid>/smaps text
 * (smaps.h). */
#define _GNU_SOURCE
#include "smaps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMD_BYTES (2ULL << 20)

long long hb_smaps_ext_kb(unsigned long long start, unsigned long long end,
			  unsigned long long off, bool anon)
{
	unsigned long long first = (start + PMD_BYTES - 1) & ~(PMD_BYTES - 1);
	unsigned long long last = end & ~(PMD_BYTES - 1);

	/* a file extent is PMD-mapped only where address and offset agree
	 * modulo 2 MiB (smaps prints 0 as the offset of anonymous memory) */
	if (!anon && (start - off) % PMD_BYTES)
		return 0;
	return last > first ? (long long)((last - first) / 1024) : 0;
}

bool hb_smaps_match(const struct hb_smaps_sel *sel, const char *path, long long size_kb)
{
	size_t n;

	switch (sel->kind) {
	case HB_SMAPS_PATH:
		n = sel->path ? strlen(sel->path) : 0;
		return n && !strncmp(path, sel->path, n) &&
		       (!path[n] || !strcmp(path + n, " (deleted)"));
	case HB_SMAPS_PREFIX:
		for (int i = 0; sel->prefixes && sel->prefixes[i]; i++)
			if (!strncmp(path, sel->prefixes[i], strlen(sel->prefixes[i])))
				return true;
		return false;
	case HB_SMAPS_ANON:
		return !path[0] && size_kb >= sel->min_kb;
	}
	return false;
}

/* One mapping being read: its header, then its "Key: N kB" lines. */
struct vma {
	bool chosen, anon;
	long long ext_kb, pmd_kb;
};

static void vma_end(struct vma *v, struct hb_smaps_sum *sum)
{
	if (!v->chosen)
		return;
	sum->pmd_kb += v->pmd_kb;
	if (v->ext_kb > 0 && v->pmd_kb >= v->ext_kb && v->ext_kb > sum->full_kb)
		sum->full_kb = v->ext_kb;
	v->chosen = false;
}

/* A header line: "start-end perms offset maj:min inode [path]". */
static bool header(const char *line, size_t len, const struct hb_smaps_sel *sel, struct vma *v,
		   struct hb_smaps_sum *sum)
{
	unsigned long long start, end, off, inode;
	char perms[8], dev[16], path[512];
	int pos = 0;
	size_t plen;

	if (sscanf(line, "%llx-%llx %7s %llx %15s %llu %n", &start, &end, perms, &off, dev, &inode,
		   &pos) < 6 || end < start || strlen(perms) != 4)
		return false;
	plen = (size_t)pos < len ? len - (size_t)pos : 0;
	if (plen >= sizeof(path))
		plen = sizeof(path) - 1;
	memcpy(path, line + (pos > 0 ? pos : (int)len), plen);
	path[plen] = 0;
	/* a private anonymous mapping has no path and is private ('p') */
	v->anon = !path[0];
	if (v->anon && perms[3] != 'p')
		return true;
	v->chosen = hb_smaps_match(sel, path, (long long)((end - start) / 1024));
	if (!v->chosen)
		return true;
	v->ext_kb = hb_smaps_ext_kb(start, end, off, v->anon);
	v->pmd_kb = 0;
	sum->n_vma++;
	sum->size_kb += (long long)((end - start) / 1024);
	sum->ext_kb += v->ext_kb;
	return true;
}

void hb_smaps_scan(const char *text, const struct hb_smaps_sel *sel, struct hb_smaps_sum *sum)
{
	struct vma v = { 0 };
	const char *want;

	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[600];
		long long kb;

		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, p, len);
		line[len] = 0;
		p = nl ? nl + 1 : NULL;
		/* a field line's first word ends in ':' ("Size:", "VmFlags:") */
		if (!strchr(line, ':') || strchr(line, ':') > strchr(line, ' ')) {
			if (strchr(line, '-') && strchr(line, ' ')) {
				vma_end(&v, sum);
				header(line, len, sel, &v, sum);
			}
			continue;
		}
		if (!v.chosen)
			continue;
		want = v.anon ? "AnonHugePages:" : "ShmemPmdMapped:";
		if (!strncmp(line, want, strlen(want)) &&
		    sscanf(line + strlen(want), "%lld", &kb) == 1)
			v.pmd_kb += kb;
	}
	vma_end(&v, sum);
}
