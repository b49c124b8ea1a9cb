// Preloaded into the everything server's HTTP launcher: its app.listen(PORT) binds every
// interface; this makes a listen without a host bind 127.0.0.1 only.
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if ((typeof args[0] === "number" || typeof args[0] === "string") && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
