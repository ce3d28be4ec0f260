// Links the PTX of several translation units into one module, as nvlink links relocatable device
// code (nvcc -rdc=true): a call or reference to an .extern function or variable is resolved by
// the unit that defines it. Works on the text, one top-level statement at a time:
// - .extern declarations of a symbol another unit defines are dropped, and repeated .extern
//   declarations of one that none defines (vprintf, malloc) are kept once;
// - a .weak definition (inline functions, template instances) is kept from the first unit that
//   has it;
// - internal symbols (no .visible/.extern/.weak/.common) whose names more than one unit defines
//   (nvcc's "$str" printf format strings, static variables of the same name) are renamed
//   per unit ("$str" -> "$str__tu1") wherever the unit names them;
// - .file ids are renumbered per unit, .loc keeps file, line and column (the inlining details
//   name labels of the debug sections, which are dropped).
// The header (.version: the highest; .target and .address_size: the first unit's) comes first.
#pragma once

#include <string>
#include <vector>

namespace warpsim::ptx {

// False with `error` set when a unit cannot be split into statements or two units define the
// same non-weak symbol.
bool link_ptx(const std::vector<std::string>& units, std::string& out, std::string& error);

}  // namespace warpsim::ptx
