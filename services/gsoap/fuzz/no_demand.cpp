// The fuzz harness's demand (demand.hpp): none. `work` may ask for up to 60 s of CPU and
// sleep; the harness checks how requests are read, not how long operations take.
#include "demand.hpp"

namespace tb {

void burn_cpu_us(int64_t) {}
void sleep_us(int64_t) {}
void apply_demand(const Demand &) {}

}  // namespace tb
