# The libFuzzer harness of the gSOAP service's request path (docs/fuzzing.md), built only
# with -DTESTBED_FUZZ=ON and clang; included by ../CMakeLists.txt (same directory scope,
# so the generated sources are shared). run.sh configures, builds and runs it.
#
#   tb-gsoap-fuzz   the harness (fuzz_request.cpp) + the service's own request code +
#                   the generated serializers/skeleton, with ASan, UBSan and coverage
#   TESTBED_FUZZ_GSOAP_SRC  the gsoap/ folder of Debian's gSOAP source (install.sh fetches
#                   it): the runtime (stdsoap2.cpp, dom.cpp) is then compiled with the
#                   same instrumentation and the flags Debian builds libgsoap++ with.
#                   Unset: the uninstrumented libgsoap++ is linked (a weaker run).
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "TESTBED_FUZZ needs clang (libFuzzer): configure with "
          "-DCMAKE_CXX_COMPILER=clang++, or run services/gsoap/fuzz/run.sh")
endif()
set(TESTBED_FUZZ_GSOAP_SRC "" CACHE PATH "gsoap/ folder of the gSOAP source (stdsoap2.cpp)")
set(FUZZ_DIR ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
set(FUZZ_FLAGS -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
               -fno-omit-frame-pointer -g -O1)

if(TESTBED_FUZZ_GSOAP_SRC)
  if(NOT EXISTS ${TESTBED_FUZZ_GSOAP_SRC}/stdsoap2.cpp)
    message(FATAL_ERROR "TESTBED_FUZZ_GSOAP_SRC=${TESTBED_FUZZ_GSOAP_SRC} has no stdsoap2.cpp")
  endif()
  # Debian's libgsoap++: stdsoap2.cpp + dom.cpp with -DWITH_IPV6 -DLINUX (debian/rules,
  # gsoap/Makefile.am); the headers are the ones the service compiles against.
  add_library(tb_fuzz_gsoap_runtime STATIC
    ${TESTBED_FUZZ_GSOAP_SRC}/stdsoap2.cpp ${TESTBED_FUZZ_GSOAP_SRC}/dom.cpp)
  target_compile_definitions(tb_fuzz_gsoap_runtime PRIVATE WITH_IPV6 LINUX)
  target_compile_options(tb_fuzz_gsoap_runtime PRIVATE ${FUZZ_FLAGS} -w)
  set(FUZZ_GSOAP tb_fuzz_gsoap_runtime)
else()
  message(WARNING "TESTBED_FUZZ_GSOAP_SRC not set: the gSOAP runtime is linked "
          "uninstrumented (no coverage or ASan inside it); run fuzz/install.sh")
  set(FUZZ_GSOAP PkgConfig::GSOAPXX)
endif()

add_executable(tb-gsoap-fuzz
  ${FUZZ_DIR}/fuzz_request.cpp ${FUZZ_DIR}/no_demand.cpp
  src/connection.cpp src/context.cpp src/operations.cpp src/http_get.cpp src/xml_guard.cpp
  src/attribute_limit.cpp src/utf8_check.cpp src/soap_action.cpp src/header_check.cpp
  src/start_check.cpp src/drain.cpp src/served.cpp
  custom/items.cpp custom/serializers.cpp
  ${GEN}/soapC.cpp ${GEN}/soapTestbedSoapBindingService.cpp ${GEN}/wsdl_embed.cpp)
target_include_directories(tb-gsoap-fuzz PRIVATE ${GEN} src custom)
target_compile_definitions(tb-gsoap-fuzz PRIVATE WITH_IPV6 WITH_DOM WITH_PURE_VIRTUAL)
target_compile_options(tb-gsoap-fuzz PRIVATE ${FUZZ_FLAGS})
target_link_options(tb-gsoap-fuzz PRIVATE ${FUZZ_FLAGS})
target_link_libraries(tb-gsoap-fuzz PRIVATE ${FUZZ_GSOAP} Threads::Threads nlohmann_json::nlohmann_json)

# ctest in this build: every committed regression input once through the harness.
add_test(NAME gsoap_fuzz_regressions_replay_without_a_finding
         COMMAND tb-gsoap-fuzz -runs=0 ${FUZZ_DIR}/regressions)
