// The contract WSDL, embedded into the server binary at build time (CMakeLists.txt writes
// the definition from services/contract/testbed.wsdl), so the binary is self-contained.
#pragma once

#include <cstddef>

namespace tb {
extern const char kContractWsdl[];      // NUL-terminated
extern const size_t kContractWsdlSize;  // without the NUL
}  // namespace tb
