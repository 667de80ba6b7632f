/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for nccl-log's file reader: the input is a file's
 * content (gzip or plain, told apart by its magic as for a real file), read
 * through nccllog_read_fd from a memory file, so the gzip path (members one
 * after the other, truncation, corrupt data, the expansion bound) is
 * exercised with the parser behind it.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nccllog/nccllog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nccllog log;
	size_t off = 0;
	int fd = memfd_create("fuzz-nccl-log-gz", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	if (off == size && lseek(fd, 0, SEEK_SET) == 0 && nccllog_init(&log) == 0) {
		/* A read error is an answer (exit 3 in the tool); what came before it is analysed. */
		(void)nccllog_read_fd(&log, fd, "fuzz.log.gz");
		nccllog_analyse(&log);
		nccllog_release(&log);
	}
	close(fd);
	return 0;
}
