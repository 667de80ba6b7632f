/* SPDX-License-Identifier: MIT */
#include "parse-sysfs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/le.h"
#include "../util/strutil.h"
#include "../util/strv.h"

#define PCI_CFG_USER 64 /* what a reader without CAP_SYS_ADMIN gets */
#define PCI_EXT_CAP_START 0x100
#define PCI_EXT_CAP_ID_ACS 0x000d

static void acs_fail(struct pci_acs *a, int negerr)
{
	fact_int_fail(&a->cap, negerr);
	fact_int_fail(&a->ctrl, negerr);
}

void pci_cfg_parse_acs(const uint8_t *cfg, size_t len, struct pci_acs *a)
{
	unsigned off = PCI_EXT_CAP_START;

	if (len <= PCI_CFG_USER) {
		acs_fail(a, -EACCES);
		return;
	}
	/* Only a list read to its end within a whole config space proves absence. */
	if (len > PCI_CFG_SIZE)
		len = PCI_CFG_SIZE;
	for (int hops = 0; hops < (PCI_CFG_SIZE - PCI_EXT_CAP_START) / 4; hops++) {
		uint32_t hdr;

		if (off + 8 > len) {
			acs_fail(a, len < PCI_CFG_SIZE ? -ENODATA : -EINVAL);
			return;
		}
		hdr = le32_get(cfg + off);
		if (hdr == 0) {
			acs_fail(a, len < PCI_CFG_SIZE ? -ENODATA : -EOPNOTSUPP);
			return;
		}
		/* All ones: the device did not answer the config read. */
		if (hdr == 0xffffffff) {
			acs_fail(a, -EIO);
			return;
		}
		if ((hdr & 0xffff) == PCI_EXT_CAP_ID_ACS) {
			fact_int_set(&a->cap, le16_get(cfg + off + 4));
			fact_int_set(&a->ctrl, le16_get(cfg + off + 6));
			return;
		}
		off = (hdr >> 20) & 0xffc;
		if (!off) {
			acs_fail(a, len < PCI_CFG_SIZE ? -ENODATA : -EOPNOTSUPP);
			return;
		}
		if (off < PCI_EXT_CAP_START)
			break;
	}
	/* A pointer below 0x100 or a list that loops. */
	acs_fail(a, -EINVAL);
}

void pci_parse_bar1(char *buf, struct fact_int *f)
{
	char *save = NULL, *line;
	int seen = 0, n = 0;

	for (line = strtok_r(buf, "\n", &save); line && n < 6;
	     line = strtok_r(NULL, "\n", &save), n++) {
		unsigned long long start, end, flags;

		if (sscanf(line, "%llx %llx %llx", &start, &end, &flags) != 3 ||
		    end < start) {
			fact_int_fail(f, -EINVAL);
			return;
		}
		if (start == 0 && end == 0)
			continue;
		if (++seen == 2) {
			/* A size that does not fit a fact is not a size. */
			if (end - start >= (unsigned long long)INT64_MAX)
				fact_int_fail(f, -ERANGE);
			else
				fact_int_set(f, (int64_t)(end - start + 1));
			return;
		}
	}
	/* Fewer than two BARs among all six lines: BAR1 is missing. A file
	 * cut before the sixth line proves nothing. */
	if (n < 6)
		fact_int_fail(f, -ENODATA);
	else
		fact_int_set(f, 0);
}

int parse_port_rate(const char *s, int64_t *ret_gbps)
{
	int64_t v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (*s++ - '0');
		if (v > PORT_RATE_MAX_GBPS)
			return -ERANGE;
	}
	*ret_gbps = v;
	return 0;
}

#define PEER_SYMBOL "ib_register_peer_memory_client"

void kallsyms_scan(FILE *fp, struct host_facts *h)
{
	char line[512];
	unsigned n = 0;
	size_t bytes = 0;

	while (fgets(line, sizeof(line), fp)) {
		char *save = NULL, *name, *mod;

		size_t len = strlen(line);

		/* A NUL inside a line (a sparse file): not a symbol table. */
		if (len == 0 || (len < sizeof(line) - 1 && line[len - 1] != '\n' &&
				 !feof(fp))) {
			fact_int_fail(&h->peer_api, -EINVAL);
			return;
		}
		bytes += len;
		if (++n > KALLSYMS_MAX_LINES || bytes > KALLSYMS_MAX_BYTES) {
			fact_int_fail(&h->peer_api, -EFBIG);
			return;
		}
		if (!strstr(line, PEER_SYMBOL))
			continue;
		if (!strtok_r(line, " \t\n", &save) ||
		    !strtok_r(NULL, " \t\n", &save))
			continue;
		name = strtok_r(NULL, " \t\n", &save);
		if (!name || strcmp(name, PEER_SYMBOL) != 0)
			continue;
		mod = strtok_r(NULL, " \t\n", &save);
		fact_int_set(&h->peer_api, 1);
		if (mod && mod[0] == '[' && mod[strlen(mod) - 1] == ']') {
			mod[strlen(mod) - 1] = '\0';
			mod++;
		} else {
			mod = (char *)"";
		}
		if (fact_str_set(&h->peer_api_module, mod) < 0)
			fact_str_fail(&h->peer_api_module, -ENOMEM);
		return;
	}
	if (ferror(fp))
		fact_int_fail(&h->peer_api, -EIO);
	else
		fact_int_set(&h->peer_api, 0);
}

void nvidia_parse_information(char *buf, struct gpu *g)
{
	char *save = NULL;
	bool model = false, minor = false;

	for (char *l = strtok_r(buf, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(l, ':');
		int64_t v;

		if (!colon)
			continue;
		*colon = '\0';
		if (strcmp(strstrip(l), "Model") == 0) {
			if (fact_str_set(&g->model, strstrip(colon + 1)) == 0)
				model = true;
		} else if (strcmp(strstrip(l), "Device Minor") == 0) {
			/* Minors 0-254; 255 is nvidiactl. */
			if (safe_atoi64(colon + 1, &v) == 0 && v >= 0 && v < 255) {
				fact_int_set(&g->minor, v);
				minor = true;
			}
		}
	}
	if (!model)
		fact_str_fail(&g->model, -EINVAL);
	if (!minor)
		fact_int_fail(&g->minor, -EINVAL);
}

/* "%04X" of a register no wider than @max: hex digits only, nothing after. */
static bool uevent_hex(const char *s, size_t len, int64_t max, struct fact_int *f)
{
	int64_t v = 0;

	if (!len || len > 8)
		return false;
	for (size_t i = 0; i < len; i++) {
		int c = s[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		v = v * 16 + d;
	}
	if (v > max)
		return false;
	fact_int_set(f, v);
	return true;
}

/* "VVVV:DDDD" into two 16-bit registers, both or neither. */
static bool uevent_id_pair(const char *s, struct fact_int *a, struct fact_int *b)
{
	const char *colon = strchr(s, ':');
	struct fact_int x = { 0 }, y = { 0 };

	if (!colon || !uevent_hex(s, (size_t)(colon - s), 0xffff, &x) ||
	    !uevent_hex(colon + 1, strlen(colon + 1), 0xffff, &y))
		return false;
	*a = x;
	*b = y;
	return true;
}

bool pci_parse_uevent(char *buf, struct pci_dev *p)
{
	struct fact_int cls = { 0 }, ven = { 0 }, dev = { 0 }, sven = { 0 }, sdev = { 0 };
	const char *driver = NULL;
	bool pci = false;
	char *save = NULL;

	for (char *line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq++ = '\0';
		if (strcmp(line, "PCI_ID") == 0)
			pci = uevent_id_pair(eq, &ven, &dev);
		else if (strcmp(line, "PCI_SUBSYS_ID") == 0)
			uevent_id_pair(eq, &sven, &sdev);
		else if (strcmp(line, "PCI_CLASS") == 0)
			uevent_hex(eq, strlen(eq), 0xffffff, &cls);
		else if (strcmp(line, "DRIVER") == 0)
			driver = eq;
	}
	/* Nothing of a uevent that does not prove it is a PCI function's. */
	if (!pci)
		return false;
	p->vendor = ven;
	p->device = dev;
	if (cls.state == FACT_OK)
		p->class_code = cls;
	if (sven.state == FACT_OK) {
		p->subsys_vendor = sven;
		p->subsys_device = sdev;
	}
	/*
	 * A driver's name is one directory name under /sys/bus/pci/drivers;
	 * anything else stays UNSET and the driver link is read instead.
	 */
	if (!driver)
		fact_str_fail(&p->driver, -ENOENT);
	else if (*driver && !strchr(driver, '/') && strlen(driver) < 256 &&
		 fact_str_set(&p->driver, driver) < 0)
		fact_str_fail(&p->driver, -ENOMEM);
	return true;
}

static int hex32(const char *s, uint32_t *ret)
{
	if (strlen(s) != 8 || strspn(s, "0123456789abcdefABCDEF") != 8)
		return -EINVAL;
	*ret = (uint32_t)strtoul(s, NULL, 16);
	return 0;
}

/* The prefix length of a contiguous netmask in network order, -1 otherwise. */
static int mask_len(uint32_t be)
{
	uint32_t m = ntohl(be);
	int n = __builtin_popcount(m);

	if (n == 0)
		return m ? -1 : 0;
	return m != (uint32_t)(~0u << (32 - n)) ? -1 : n;
}

static void routes_free(struct cni_route *routes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(routes[i].dev);
		free(routes[i].dst);
		free(routes[i].via);
	}
	free(routes);
}

static const char *ip4_text(uint32_t be, char buf[INET_ADDRSTRLEN])
{
	struct in_addr a = { .s_addr = be };

	return inet_ntop(AF_INET, &a, buf, INET_ADDRSTRLEN);
}

int parse_proc_net_route(const char *text, char **ret_default, struct cni_route **ret_routes,
			 size_t *ret_n)
{
	char *copy = strdup(text), *save = NULL, *line, *dflt = NULL;
	struct cni_route *routes = NULL;
	size_t n = 0;

	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char ifname[32], dst[16], gw[16], mask[16], addr[INET_ADDRSTRLEN];
		uint32_t d, g, m;
		unsigned flags;
		struct cni_route *v;
		int len;

		if (sscanf(line, "%31s %15s %15s %x %*s %*s %*s %15s", ifname, dst, gw, &flags,
			   mask) != 5 ||
		    hex32(dst, &d) < 0 || hex32(gw, &g) < 0 || hex32(mask, &m) < 0 ||
		    !(flags & 1) || (len = mask_len(m)) < 0 || (d & ~m))
			continue;
		if (d == 0 && m == 0 && !dflt && !(dflt = strdup(ifname)))
			goto oom;
		v = realloc(routes, (n + 1) * sizeof(*v));
		if (!v)
			goto oom;
		routes = v;
		routes[n++] = (struct cni_route){ .dev = strdup(ifname) };
		if (!routes[n - 1].dev ||
		    asprintf(&routes[n - 1].dst, "%s/%d", ip4_text(d, addr), len) < 0) {
			routes[n - 1].dst = NULL;
			goto oom;
		}
		/* RTF_GATEWAY (0x2): reached through a router, not on the link. */
		if ((flags & 2) && !(routes[n - 1].via = strdup(ip4_text(g, addr))))
			goto oom;
	}
	free(copy);
	*ret_default = dflt;
	*ret_routes = routes;
	*ret_n = n;
	return 0;
oom:
	routes_free(routes, n);
	free(dflt);
	free(copy);
	return -ENOMEM;
}

/* A mountinfo path with its "\\ooo" escapes (space, tab, newline, backslash) undone, in place. */
static void unescape_octal(char *s)
{
	char *w = s;

	for (const char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 | (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

static bool path_under(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return true;
	return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

/* Whether "ro" is one of the comma-separated options. */
static bool opts_ro(const char *opts)
{
	for (const char *o = opts; o; o = strchr(o, ',')) {
		if (*o == ',')
			o++;
		if (strncmp(o, "ro", 2) == 0 && (o[2] == ',' || o[2] == '\0'))
			return true;
	}
	return false;
}

int parse_mountinfo_writable(const char *text, const char *dir, char ***ret)
{
	char *copy = strdup(text), *save = NULL, *line, **out = NULL;
	char *holder = NULL; /* the longest mount point that holds @dir */
	bool holder_rw = false;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line && r >= 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[6], *s2 = NULL, *tok = strtok_r(line, " ", &s2);
		size_t n = 0;

		for (; tok && n < 6; tok = strtok_r(NULL, " ", &s2))
			f[n++] = tok;
		if (n < 6)
			continue;
		unescape_octal(f[4]);
		if (path_under(f[4], dir)) {
			if (!opts_ro(f[5]) && !strv_contains(out, f[4]))
				r = strv_push(&out, NULL, f[4]);
		} else if (path_under(dir, f[4]) && (!holder || strlen(f[4]) >= strlen(holder))) {
			free(holder);
			holder = strdup(f[4]);
			holder_rw = !opts_ro(f[5]);
			if (!holder)
				r = -ENOMEM;
		}
	}
	if (r >= 0 && holder && holder_rw && !strv_contains(out, holder))
		r = strv_push(&out, NULL, holder);
	free(holder);
	free(copy);
	if (r < 0) {
		strv_free(out);
		return -ENOMEM;
	}
	*ret = out;
	return 0;
}
