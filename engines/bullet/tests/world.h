// SPDX-License-Identifier: MIT
// File: engines/bullet/tests/world.h
//
// The test scene, shared by the adapter's tests, benchmark and example: a btDiscreteDynamicsWorld with a
// static ground and far wall (a btStaticPlaneShape, whose AABB is +-1e18), static obstacles (two of them
// overlapping: a static pair Bullet filters out), stacks of boxes at rest, boxes and spheres falling,
// debris that does not collide with debris (DebrisFilter), a kinematic box on a circle and a fast
// projectile (CCD) fired at a static wall. Every body's user index is its index in `bodies`.
#ifndef LWC_ENGINES_BULLET_TESTS_WORLD_H_
#define LWC_ENGINES_BULLET_TESTS_WORLD_H_

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "btBulletDynamicsCommon.h"

namespace lwc::bullet::testing {

struct SceneSize {
  int stacks = 3;
  int stack_height = 6;
  int falling = 64;  // boxes and spheres, alternately
  int debris = 12;
};

inline constexpr btScalar kWallX = 20;      // the projectile's static wall: x in [19.5, 20.5]
inline constexpr btScalar kGroundHalf = 40;  // the ground: |x|, |z| <= 40, top at y = 0

class World {
 public:
  explicit World(std::unique_ptr<btBroadphaseInterface> broadphase) : broadphase_(std::move(broadphase)) {
    configuration_ = std::make_unique<btDefaultCollisionConfiguration>();
    dispatcher_ = std::make_unique<btCollisionDispatcher>(configuration_.get());
    solver_ = std::make_unique<btSequentialImpulseConstraintSolver>();
    world_ = std::make_unique<btDiscreteDynamicsWorld>(dispatcher_.get(), broadphase_.get(), solver_.get(),
                                                       configuration_.get());
    world_->setGravity(btVector3(0, -10, 0));
  }
  ~World() {
    for (auto& body : bodies_) {
      if (body->isInWorld()) world_->removeRigidBody(body.get());
    }
    bodies_.clear();
    world_.reset();
  }
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // add(): a body of `shape` (owned) at `at`; mass 0 is static. Returns its index.
  int add(btCollisionShape* shape, btScalar mass, const btVector3& at, int group = 0, int mask = 0) {
    shapes_.emplace_back(shape);
    btVector3 inertia(0, 0, 0);
    if (mass > 0) shape->calculateLocalInertia(mass, inertia);
    states_.push_back(std::make_unique<btDefaultMotionState>(btTransform(btQuaternion::getIdentity(), at)));
    btRigidBody::btRigidBodyConstructionInfo info(mass, states_.back().get(), shape, inertia);
    bodies_.push_back(std::make_unique<btRigidBody>(info));
    btRigidBody* body = bodies_.back().get();
    const int index = static_cast<int>(bodies_.size()) - 1;
    body->setUserIndex(index);
    if (group != 0) {
      world_->addRigidBody(body, group, mask);
    } else {
      world_->addRigidBody(body);
    }
    return index;
  }

  void build(const SceneSize& size, std::uint32_t seed = 20261202) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> jitter(-0.2f, 0.2f);
    add(new btBoxShape(btVector3(kGroundHalf, 1, kGroundHalf)), 0, btVector3(0, -1, 0));
    add(new btStaticPlaneShape(btVector3(1, 0, 0), -45), 0, btVector3(0, 0, 0));  // far wall x = -45
    add(new btBoxShape(btVector3(0.5f, 3, 5)), 0, btVector3(kWallX, 3, -10));      // the projectile's wall
    add(new btBoxShape(btVector3(1, 1, 1)), 0, btVector3(10, 1, 10));             // two static obstacles
    add(new btBoxShape(btVector3(1, 1, 1)), 0, btVector3(11, 1, 10.5f));          // overlapping each other
    for (int s = 0; s < size.stacks; ++s) {
      for (int k = 0; k < size.stack_height; ++k) {
        add(new btBoxShape(btVector3(0.5f, 0.5f, 0.5f)), 1, btVector3(-10 + 3.0f * static_cast<float>(s), 0.5f + static_cast<float>(k), 5));
      }
    }
    const int side = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(size.falling))));
    for (int i = 0; i < size.falling; ++i) {
      const btVector3 at(-8 + 1.6f * static_cast<float>(i % side) + jitter(rng), 4 + 0.7f * static_cast<float>(i / side % 7),
                         -8 + 1.6f * static_cast<float>(i / side) + jitter(rng));
      if (i % 2 == 0) {
        add(new btBoxShape(btVector3(0.4f, 0.4f, 0.4f)), 1, at);
      } else {
        add(new btSphereShape(0.45f), 1, at);
      }
    }
    for (int i = 0; i < size.debris; ++i) {
      add(new btSphereShape(0.2f), 0.2f, btVector3(8 + 0.25f * static_cast<float>(i % 4), 2 + 0.25f * static_cast<float>(i / 4), -3),
          btBroadphaseProxy::DebrisFilter, btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::DebrisFilter);
    }
    kinematic_ = add(new btBoxShape(btVector3(1, 0.5f, 1)), 0, kinematic_pose(0).getOrigin());
    btRigidBody* k = bodies_[static_cast<std::size_t>(kinematic_)].get();
    k->setCollisionFlags(k->getCollisionFlags() | btCollisionObject::CF_KINEMATIC_OBJECT);
    k->setActivationState(DISABLE_DEACTIVATION);
    projectile_ = add(new btSphereShape(0.1f), 0.1f, btVector3(kWallX + 15, 2, -10));
    btRigidBody* p = bodies_[static_cast<std::size_t>(projectile_)].get();
    p->setLinearVelocity(btVector3(-300, 0, 0));
    p->setCcdMotionThreshold(0.05f);
    p->setCcdSweptSphereRadius(0.1f);
  }

  static btTransform kinematic_pose(int step) {
    const float a = 0.02f * static_cast<float>(step);
    return btTransform(btQuaternion::getIdentity(), btVector3(5 + 5 * std::cos(a), 0.6f, -5 + 5 * std::sin(a)));
  }

  // step(): moves the kinematic body to its pose of the next step, then one fixed 1/60 s step.
  void step() {
    ++steps_;
    if (kinematic_ >= 0) states_[static_cast<std::size_t>(kinematic_)]->setWorldTransform(kinematic_pose(steps_));
    world_->stepSimulation(btScalar(1) / 60, 0);
  }

  btDiscreteDynamicsWorld& world() { return *world_; }
  btBroadphaseInterface& broadphase() { return *broadphase_; }
  btCollisionDispatcher& dispatcher() { return *dispatcher_; }
  std::vector<std::unique_ptr<btRigidBody>>& bodies() { return bodies_; }
  int projectile() const { return projectile_; }
  int kinematic() const { return kinematic_; }
  int steps() const { return steps_; }
  void set_steps(int steps) { steps_ = steps; }

 private:
  std::unique_ptr<btBroadphaseInterface> broadphase_;
  std::unique_ptr<btDefaultCollisionConfiguration> configuration_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btDefaultMotionState>> states_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
  int kinematic_ = -1;
  int projectile_ = -1;
  int steps_ = 0;
};

}  // namespace lwc::bullet::testing

#endif  // LWC_ENGINES_BULLET_TESTS_WORLD_H_
