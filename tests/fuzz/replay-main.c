/* SPDX-License-Identifier: MIT */
/*
 * Runs a fuzz target over saved inputs without libFuzzer: each argument is a
 * file or a directory of files (corpus, regression inputs). The normal suite
 * (and its ASan+UBSan build) runs every target this way, so an input that
 * once crashed a parser keeps being tried.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (!fp) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	for (;;) {
		size_t got;

		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		got = fread(buf + len, 1, cap - len, fp);
		if (!got)
			break;
		len += got;
	}
	fclose(fp);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	++*n;
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path, size_t *n)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t k = 0;
	int bad = 0;
	DIR *d;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path, n);
	d = opendir(path);
	if (!d)
		return 1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = realloc(names, (k + 1) * sizeof(*names));
		if (!names || asprintf(&names[k], "%s/%s", path, de->d_name) < 0)
			abort();
		k++;
	}
	closedir(d);
	qsort(names, k, sizeof(*names), cmp);
	for (size_t i = 0; i < k; i++) {
		bad |= run_path(names[i], n);
		free(names[i]);
	}
	free(names);
	return bad;
}

int main(int argc, char **argv)
{
	size_t n = 0;
	int bad = 0;

	for (int i = 1; i < argc; i++)
		bad |= run_path(argv[i], &n);
	printf("%zu inputs run\n", n);
	return bad;
}
