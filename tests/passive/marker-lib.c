/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for a vendor library (built as libcuda.so.1 and
 * libnvidia-ml.so.1, put first on LD_LIBRARY_PATH): it defines no symbol,
 * and when the dynamic loader maps it, it leaves a marker file, so a test
 * can tell whether a command loaded the library at all.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void marker_loaded(void)
{
	const char *dir = getenv("GDRCHECK_TEST_MARKER_DIR");
	char path[4096];
	int fd;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s.loaded", dir, MARKER_NAME);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}
