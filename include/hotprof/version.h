/* version.h — hotprof's version, shared by the command line, the runtime and the profile INFO. */
#ifndef HOTPROF_VERSION_H
#define HOTPROF_VERSION_H
#define HOTPROF_VERSION "0.1.0"
#endif
