/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-run.h"
#include "check-scenarios.h"
#include "render/render.h"

/*
 * Golden reports: every scenario rendered as text and JSON and compared
 * with tests/data/check/<scenario>.{txt,json}, or, for a scenario that is
 * a fixture tree unchanged, with that tree's own goldens (the CLI's run on
 * it: one golden per machine). GDRCHECK_UPDATE_GOLDEN=1 rewrites the
 * files under tests/data/check instead (review the diff before committing);
 * the fixture tests rewrite the trees' goldens.
 */

static char *render(const struct run *run, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);

	assert_non_null(mf);
	if (json) {
		json_object *doc = render_report_json(&run->f, &run->r);

		assert_int_equal(render_json_print(mf, doc), 0);
		json_object_put(doc);
	} else {
		assert_int_equal(render_report_text(mf, &run->f, &run->r, false), 0);
	}
	assert_int_equal(fclose(mf), 0);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "re");
	char *buf;
	long n;

	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static void compare(const struct scenario *sc, bool json, const char *got)
{
	const char *src = getenv("GDRCHECK_SRCDIR");
	const char *upd = getenv("GDRCHECK_UPDATE_GOLDEN");
	char path[4096];
	char *want;

	assert_non_null(src);
	if (sc->tree)
		snprintf(path, sizeof(path), FIXTURE_DIR "/%s/expected/check-%s.out",
			 sc->tree, json ? "json" : "txt");
	else
		snprintf(path, sizeof(path), "%s/tests/data/check/%s.%s", src,
			 sc->name, json ? "json" : "txt");
	if (upd && strcmp(upd, "1") == 0 && !sc->tree) {
		FILE *fp = fopen(path, "we");

		assert_non_null(fp);
		fputs(got, fp);
		assert_int_equal(fclose(fp), 0);
		return;
	}
	want = slurp(path);
	if (!want)
		fail_msg("missing golden file %s (GDRCHECK_UPDATE_GOLDEN=1 writes it)", path);
	if (strcmp(want, got) != 0) {
		size_t i = 0;

		while (want[i] && want[i] == got[i])
			i++;
		fail_msg("%s differs from the report at byte %zu:\n--- want: %.200s\n--- got:  %.200s",
			 path, i, want + i, got + i);
	}
	free(want);
}

static void test_golden(void **state)
{
	for (size_t i = 0; scenarios[i].name; i++) {
		struct run run;
		char *txt, *json;

		run_scenario(&run, scenarios[i].name);
		txt = render(&run, false);
		json = render(&run, true);
		compare(&scenarios[i], false, txt);
		compare(&scenarios[i], true, json);
		free(txt);
		free(json);
		run_release(&run);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
