// dual_options.cpp — checks of the dual plugin's string options (see dual_options.h).
#include "dual_options.h"

#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace llvm;

namespace hotprof_dual {

// Not report_fatal_error: under clang's in-process cc1 that goes through the crash-recovery path,
// which prints "PLEASE submit a bug report" and a stack dump after the message.
[[noreturn]] static void refuse(const std::string &message)
{
    errs() << "hotprof dual plugin: " << message << "\n";
    errs().flush();
    sys::RunInterruptHandlers(); /* removes the output files clang registered */
    std::_Exit(1);
}

void checkOption(const cl::opt<std::string> &opt, std::initializer_list<const char *> allowed)
{
    std::string list;
    for (const char *a : allowed) {
        if (opt == a) return;
        list += list.empty() ? a : std::string("|") + a;
    }
    refuse("-" + opt.ArgStr.str() + "=" + opt.getValue() + " is not one of " + list);
}

bool optionOn(const cl::opt<std::string> &opt)
{
    checkOption(opt, {"on", "off"});
    return opt == "on";
}

} // namespace hotprof_dual
