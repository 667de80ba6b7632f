/* SPDX-License-Identifier: MIT */
#include "pod-collect.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "../util/cleanup.h"
#include "../util/strutil.h"

/*
 * /dev/shm: NCCL's shared-memory transport and its proxy keep their buffers
 * there, and a container runtime mounts only 64 MiB unless the pod mounts an
 * emptyDir with medium: Memory on it.
 */

/* "size=65536k" (tmpfs(5): k, m, g suffixes; a % of RAM is not a size). */
static int parse_size_opt(const char *opts, int64_t *bytes)
{
	const char *s = opts;

	while ((s = strstr(s, "size="))) {
		char *end;
		unsigned long long v;

		if (s != opts && s[-1] != ',') {
			s++;
			continue;
		}
		errno = 0;
		v = strtoull(s + 5, &end, 10);
		if (errno || end == s + 5)
			return -EINVAL;
		switch (*end) {
		case 'k': case 'K': v <<= 10; end++; break;
		case 'm': case 'M': v <<= 20; end++; break;
		case 'g': case 'G': v <<= 30; end++; break;
		case '%': return -ENODATA;
		default: break;
		}
		if (*end && *end != ',' && *end != ' ' && *end != '\n')
			return -EINVAL;
		*bytes = (int64_t)v;
		return 0;
	}
	return -ENODATA;
}

int pod_parse_mount_size(const char *mountinfo, const char *mountpoint,
			 char *fstype, size_t fstype_size, int64_t *bytes)
{
	_cleanup_free_ char *copy = strdup(mountinfo);
	char *save = NULL;
	int found = -ENOENT;

	if (!copy)
		return -ENOMEM;
	/* id parent maj:min root mountpoint opts [optional...] - fstype source superopts */
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char mp[512], fs[64], src[256], super[1024];
		const char *dash = strstr(l, " - ");

		if (!dash || sscanf(l, "%*s %*s %*s %*s %511s", mp) != 1 ||
		    strcmp(mp, mountpoint) != 0)
			continue;
		if (sscanf(dash + 3, "%63s %255s %1023s", fs, src, super) != 3)
			continue;
		/* Later lines are mounted over earlier ones: the last one counts. */
		snprintf(fstype, fstype_size, "%s", fs);
		found = parse_size_opt(super, bytes);
	}
	return found;
}

int pod_collect_shm(const struct gc_root *root, struct pod_facts *p)
{
	_cleanup_free_ char *mi = NULL;
	char fstype[64] = "";
	int64_t bytes = 0;
	int r;

	r = root_read_alloc(root, "/proc/self/mountinfo", 1 << 20, &mi);
	if (r == -ENOMEM)
		return r;
	if (r >= 0)
		r = pod_parse_mount_size(mi, "/dev/shm", fstype, sizeof(fstype), &bytes);
	if (r == -ENOMEM)
		return r;
	if (fstype[0] && fact_str_set(&p->shm_fstype, fstype) < 0)
		return -ENOMEM;
	else if (!fstype[0])
		fact_str_fail(&p->shm_fstype, r == -ENODATA ? -EINVAL : r);
	if (root->live) {
		/* The kernel's own count: also right for a size given in %. */
		struct statvfs st;

		if (statvfs("/dev/shm", &st) == 0)
			fact_int_set(&p->shm_bytes, (int64_t)st.f_blocks * (int64_t)st.f_frsize);
		else
			fact_int_fail(&p->shm_bytes, -errno);
		return 0;
	}
	if (r >= 0) {
		fact_int_set(&p->shm_bytes, bytes);
	} else if (!mi) {
		/* No mount table: /dev/shm may well be there; say why it is unknown. */
		p->shm_bytes.state = FACT_UNREADABLE;
		p->shm_bytes.err = -r;
	} else if (r == -ENOENT && root_is_dir(root, "/dev/shm") == 1) {
		/* A plain directory of /dev, not a mount of its own: no size to read. */
		fact_int_fail(&p->shm_bytes, -EOPNOTSUPP);
	} else {
		fact_int_fail(&p->shm_bytes, r == -ENODATA ? -EOPNOTSUPP : r);
	}
	return 0;
}
