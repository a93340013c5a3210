/* asm.c — one function's instructions for `hotprof annotate --asm` (annotate.h): its bytes read
 * from the module file recorded in the profile (reported to libdwfl at the recorded load bias, as
 * symbolize.c does, so run-time addresses map to file addresses), its size from the ELF symbol,
 * the instructions decoded by Capstone (x86-64), each with its source line and its block's count.
 *
 * A file whose build-id differs from the recorded one is refused: its instructions are not the
 * ones that ran. Invariant: the instructions returned are in address order and cover exactly
 * [start, start + symbol size) up to the first byte Capstone cannot decode.
 */
#include "analysis/annotate/annotate.h"
#include <capstone/capstone.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

void hp_annot_assign_blocks(const hp_annot_func *f, hp_annot_insn *insns, size_t n)
{
    size_t b = 0; /* f->blocks[b - 1] is the block holding the current instruction */
    if (f->samples) {
        for (size_t i = 0; i < n; i++) {
            while (b < f->nblocks && f->blocks[b].pc < insns[i].addr) b++;
            insns[i].in_block = 1;
            insns[i].count = b < f->nblocks && f->blocks[b].pc == insns[i].addr ? f->blocks[b].count : 0;
            insns[i].block_start = insns[i].count > 0;
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        while (b < f->nblocks && f->blocks[b].pc <= insns[i].addr) b++;
        insns[i].in_block = b > 0;
        insns[i].block_start = b > 0 && f->blocks[b - 1].pc == insns[i].addr;
        insns[i].count = b > 0 ? f->blocks[b - 1].count : 0;
    }
}

static int build_id_matches(Dwfl_Module *mod, const hp_module *m)
{
    const unsigned char *bits;
    GElf_Addr vaddr;
    if (!m->buildid_len) return 1;
    int n = dwfl_module_build_id(mod, &bits, &vaddr);
    return n > 0 && (uint32_t)n == m->buildid_len && memcmp(bits, m->buildid, m->buildid_len) == 0;
}

/* The function's bytes inside the module's file: 0, or -1 with a message. */
static int function_bytes(Dwfl_Module *mod, const hp_annot_func *f, const uint8_t **code, size_t *size, char *err,
                          size_t len)
{
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(mod, f->start, &off, &sym, NULL, NULL, NULL);
    if (!name || off != 0 || sym.st_size == 0) {
        snprintf(err, len, "%s: no sized symbol at the start of %s; cannot tell where it ends", f->module->path,
                 f->name);
        return -1;
    }
    Dwarf_Addr addr = f->start, bias;
    Elf_Scn *scn = dwfl_module_address_section(mod, &addr, &bias);
    Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
    if (!data || !data->d_buf || addr > data->d_size || sym.st_size > data->d_size - addr) {
        snprintf(err, len, "%s: the bytes of %s are not in the file (%s)", f->module->path, f->name,
                 dwfl_errmsg(-1));
        return -1;
    }
    *code = (const uint8_t *)data->d_buf + addr;
    *size = sym.st_size;
    return 0;
}

static int decode(const uint8_t *code, size_t size, uint64_t start, hp_annot_insn **out, size_t *n, char *err,
                  size_t len)
{
    csh h;
    cs_insn *ci = NULL;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) {
        snprintf(err, len, "cannot start the Capstone disassembler");
        return -1;
    }
    size_t count = cs_disasm(h, code, size, start, 0, &ci);
    *out = calloc(count + 1, sizeof **out);
    if (*out) {
        for (size_t i = 0; i < count; i++) {
            (*out)[i].addr = ci[i].address;
            snprintf((*out)[i].text, sizeof (*out)[i].text, "%.31s%s%.120s", ci[i].mnemonic, ci[i].op_str[0] ? " " : "",
                     ci[i].op_str);
        }
        *n = count;
    } else {
        snprintf(err, len, "out of memory");
    }
    if (ci) cs_free(ci, count);
    cs_close(&h);
    return *out ? 0 : -1;
}

static int add_lines(hp_symbolizer *s, hp_annot_insn *insns, size_t n, char *err, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        const hp_symbol *sym = hp_sym_lookup(s, insns[i].addr);
        if (!sym) {
            snprintf(err, len, "out of memory");
            return -1;
        }
        insns[i].file = sym->file;
        insns[i].line = sym->file ? sym->line : 0;
    }
    return 0;
}

static int disasm_module(Dwfl *dwfl, const hp_annot_func *f, hp_symbolizer *s, hp_annot_insn **out, size_t *n,
                         char *err, size_t len)
{
    const hp_module *m = f->module;
    const uint8_t *code;
    size_t size;
    Dwfl_Module *mod = dwfl_report_elf(dwfl, m->path, m->path, -1, m->base, true);
    dwfl_report_end(dwfl, NULL, NULL);
    if (!mod) {
        snprintf(err, len, "%s: cannot read the module file (%s)", m->path, dwfl_errmsg(-1));
        return -1;
    }
    if (!build_id_matches(mod, m)) {
        snprintf(err, len, "%s: build-id differs from the profiled run (rebuilt since?); its instructions are not "
                           "the ones that ran", m->path);
        return -1;
    }
    if (function_bytes(mod, f, &code, &size, err, len)) return -1;
    if (decode(code, size, f->start, out, n, err, len)) return -1;
    hp_annot_assign_blocks(f, *out, *n);
    return add_lines(s, *out, *n, err, len);
}

int hp_annot_disasm(const hp_annot_func *f, hp_symbolizer *s, hp_annot_insn **out, size_t *n, char *err,
                    size_t len)
{
    *out = NULL;
    *n = 0;
    if (!f->module || !f->module->path[0]) {
        snprintf(err, len, "%s: the profile records no module file for it", f->name);
        return -1;
    }
    Dwfl *dwfl = dwfl_begin(&offline_callbacks);
    if (!dwfl) {
        snprintf(err, len, "cannot start libdwfl (%s)", dwfl_errmsg(-1));
        return -1;
    }
    dwfl_report_begin(dwfl);
    int rc = disasm_module(dwfl, f, s, out, n, err, len);
    dwfl_end(dwfl);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
