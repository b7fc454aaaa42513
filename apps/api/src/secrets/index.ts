/** Secrets at rest: the key and the box. */
export { SecretBox, SecretError } from "./box.js";
export { KEY_FILE, loadSecretKey, SECRET_KEY_ENV } from "./key.js";
