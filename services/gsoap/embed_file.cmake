# Writes a C++ source that holds a file's bytes as tb::kContractWsdl (see src/wsdl_embed.hpp).
#   cmake -DINPUT=testbed.wsdl -DOUTPUT=wsdl_embed.cpp -P embed_file.cmake
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp"
  "// Generated at build time from ${INPUT}; do not edit.\n"
  "#include \"wsdl_embed.hpp\"\n"
  "namespace tb {\n"
  "extern const char kContractWsdl[] = {\n${bytes}0x00};\n"
  "extern const size_t kContractWsdlSize = ${size};\n"
  "}  // namespace tb\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
