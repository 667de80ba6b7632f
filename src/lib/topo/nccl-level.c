/* SPDX-License-Identifier: MIT */
#include "topo.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"

static const char *const path_names[] = {
	"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C",
	"PXN", "PHB", "SYS", "NET", "DIS",
};

const char *nccl_path_name(int p)
{
	if (p < 0 || (size_t)p >= sizeof(path_names) / sizeof(path_names[0]))
		return "unknown";
	return path_names[p];
}

static const char *const smi_names[] = {
	[SMI_NONE] = NULL, [SMI_PIX] = "PIX", [SMI_PXB] = "PXB",
	[SMI_PHB] = "PHB", [SMI_NODE] = "NODE", [SMI_SYS] = "SYS",
};

const char *smi_label_name(enum smi_label l)
{
	if ((unsigned)l > SMI_SYS)
		return NULL;
	return smi_names[l];
}

const char *gdr_mode_name(enum gdr_mode m)
{
	switch (m) {
	case GDR_MODE_DEFAULT:
		return "Default";
	case GDR_MODE_PCI:
		return "PCI";
	default:
		return NULL;
	}
}

const char *gdr_state_name(enum gdr_state s)
{
	switch (s) {
	case GDR_STATE_YES:
		return "yes";
	case GDR_STATE_PREDICTED:
		return "predicted";
	case GDR_STATE_NO:
		return "no";
	case GDR_STATE_UNKNOWN:
		break;
	}
	return "unknown";
}

int nccl_parse_level(const char *s)
{
	/* Legacy numbers (NCCL levelsOldToNew): NVL cannot be expressed. */
	static const int old_to_new[] = { PATH_LOC, PATH_PIX, PATH_PXB,
					   PATH_PHB, PATH_SYS, PATH_SYS };
	long n;

	if (!s)
		return -EINVAL;
	/* Names LOC..SYS only: NET and NODE are not levels. */
	for (int p = PATH_LOC; p <= PATH_SYS; p++)
		if (strcmp(s, path_names[p]) == 0)
			return p;
	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	n = strtol(s, NULL, 0);
	if (n < 0)
		return -EINVAL;
	if (n > 5)
		n = 5;
	return old_to_new[n];
}

bool nccl_param_parse(const char *str, int64_t *ret)
{
	long long v;

	if (!str || !*str)
		return false;
	/*
	 * NCCL's ncclLoadParam (src/misc/param.cc): strtoll(str, NULL, 0) and
	 * the default only when errno is set. So "010" is 8, "0x10" is 16,
	 * "12abc" is 12 and "abc" is 0 (glibc sets no errno for no digits).
	 */
	errno = 0;
	v = strtoll(str, NULL, 0);
	if (errno)
		return false;
	*ret = v;
	return true;
}

long nccl_setting_long(const struct facts *f, const char *name, long def,
		       bool *set)
{
	const struct nccl_setting *s = facts_nccl_get(f, name);
	int64_t v;

	if (set)
		*set = false;
	if (!s || !nccl_param_parse(s->value, &v))
		return def;
	if (set)
		*set = true;
	return (long)v;
}
