// dual_options.h — checks of the dual plugin's string options (-mllvm -hotprof-dual-*=VALUE):
// a value outside the allowed list gives one message and exit status 1, never a crash report
// (clang's stack dump and "PLEASE submit a bug report").
// Every option is checked when the pass starts on a module, before any function changes
// (hotprof_dual.cpp's DualPass); an accessor such as countRegOn checks again where it is read.
#pragma once

#include "llvm/Support/CommandLine.h"

#include <initializer_list>
#include <string>

namespace hotprof_dual {

// Stops with "hotprof dual plugin: -NAME=VALUE is not one of A|B|..." unless VALUE is allowed.
void checkOption(const llvm::cl::opt<std::string> &opt, std::initializer_list<const char *> allowed);

// An on|off option, checked: true for on.
bool optionOn(const llvm::cl::opt<std::string> &opt);

} // namespace hotprof_dual
