// The classes of custom/items.h, declared before soapStub.h's typedefs of the elements
// (soapcpp2 writes those typedefs first and copies this #include to the top).
#pragma once

class tb__ByteItems;
class tb__IntItems;
class tb__FloatItems;
class tb__DoubleItems;
