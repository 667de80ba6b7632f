/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

#include "../model/facts.h"
#include "../util/root.h"

/*
 * Leaf reads every collector shares: one file under the root into one fact.
 * A failed read becomes the fact's state (-errno), never an error.
 */

void read_int_fact(const struct gc_root *root, const char *path,
		   struct fact_int *f);
void read_str_fact(const struct gc_root *root, const char *path,
		   struct fact_str *f);
/* Read a "<n>: <NAME>" sysfs value (port state) into its number. */
void read_numbered_fact(const struct gc_root *root, const char *path,
			struct fact_int *f);
/* "Y"/"N" (a bool module parameter), or "1"/"0", into 1/0. */
void read_bool_fact(const struct gc_root *root, const char *path,
		    struct fact_int *f);
/* A link's target basename: "../../../bus/pci/drivers/nvidia" → "nvidia". */
void read_link_name(const struct gc_root *root, const char *path,
		    struct fact_str *f);
/* The same, for @name in a directory opened once (root_dir_open). */
void read_int_fact_at(const struct gc_dir *d, const char *name,
		      struct fact_int *f);
void read_str_fact_at(const struct gc_dir *d, const char *name,
		      struct fact_str *f);
void read_link_name_at(const struct gc_dir *d, const char *name,
		       struct fact_str *f);
/* 1 when @path exists under the root (links followed), else its state. */
void read_presence_fact(const struct gc_root *root, const char *path,
			struct fact_int *f);

/* An NVIDIA display-class function (vendor 0x10de, class 0x03xxxx). */
bool pci_is_nvidia_gpu(const struct pci_dev *p);
