// The engine's tests seed Redis with configuration exactly as the admin writes it. They reach the admin's writer
// through here, by its package export, so that no test of one service imports another service's source.
export { ConfigStore } from '@adnet/admin/config-store';
