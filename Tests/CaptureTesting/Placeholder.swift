// The scripted V4L2 test double lives here.
